package org.vancetope.worktarget.core.internal.path;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Frees a thread whose open of a file waits on a FIFO. Opening a named pipe for reading (or writing)
 * blocks until another process opens its other end, and nothing in Java interrupts that wait: a job
 * that swaps a file for a FIFO between the tool's check of the entry and its open (or a FIFO a job
 * makes under a staging file's name) would hold the tool's thread forever, past every deadline, and
 * with it a search lane every caller shares.
 *
 * <p>Each thread marks the open it is in ({@link #begin}, {@link Slot#end}: a few volatile writes,
 * no allocation). While some open is in progress a daemon thread looks every {@value #POLL_MS} ms;
 * an open that has waited {@value #RELEASE_AFTER_MS} ms on an entry that is now a FIFO gets its other
 * end opened and closed at once, through the same directory handle, read-write (which never waits on
 * a FIFO on Linux or macOS): the waiting open returns, and {@link SafeDirectory} then refuses the
 * channel because it cannot seek (a pipe), so nothing reads from it. The watcher stops after
 * {@value #IDLE_STOP_MS} ms without an open in progress and starts again with the next one.
 *
 * <p>What this cannot free: an open whose FIFO was removed again while it waited. Nothing can open
 * that pipe's other end any more, and Java can neither open without waiting ({@code O_NONBLOCK}) nor
 * interrupt the wait; the watcher reports such an open after {@value #REPORT_AFTER_MS} ms. A search
 * still ends at its deadline (its lane is abandoned with the thread); a tool that opens on the
 * caller's thread ({@code file_read}) does not return.
 */
final class OpenWatch {
    /** How often the watcher looks. */
    static final long POLL_MS = 100;
    /** How long an open may wait before the watcher looks at what it opens. */
    static final long RELEASE_AFTER_MS = 200;
    /** How long an open may wait before the watcher reports it (once). */
    static final long REPORT_AFTER_MS = 5_000;
    /** How long the watcher runs on without an open in progress. */
    static final long IDLE_STOP_MS = 5_000;
    private static final int S_IFMT = 0170000;
    private static final int S_IFIFO = 0010000;
    private static final Set<OpenOption> OTHER_END = Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE,
            LinkOption.NOFOLLOW_LINKS);
    private static final Logger LOG = LoggerFactory.getLogger(OpenWatch.class);
    private static final Queue<Slot> SLOTS = new ConcurrentLinkedQueue<>();
    private static final ThreadLocal<Slot> MINE = ThreadLocal.withInitial(() -> {
        Slot s = new Slot(Thread.currentThread());
        SLOTS.add(s);
        return s;
    });
    private static volatile boolean watching;
    private static long lastLogNanos;
    private static int unlogged;

    private OpenWatch() {
    }

    /**
     * Marks the calling thread as opening {@code name} in {@code dir}; end it with {@link Slot#end} in a
     * {@code finally}.
     *
     * @param dir the directory handle the open goes through
     * @param name the entry
     * @return the thread's slot
     */
    static Slot begin(SafeDirectory dir, Path name) {
        Slot s = MINE.get();
        s.dir = dir;
        s.name = name;
        s.since = System.nanoTime();
        s.seq++;            // odd: an open in progress; the volatile write publishes dir, name and since
        if (!watching) {    // read after the slot is marked: see watch() for why no open is missed
            startWatcher();
        }
        return s;
    }

    private static synchronized void startWatcher() {
        if (watching) {
            return;
        }
        watching = true;
        Thread t = new Thread(OpenWatch::watch, "worktarget-open-watch");
        t.setDaemon(true);
        t.start();
    }

    private static void watch() {
        long idleSince = System.nanoTime();
        while (true) {
            try {
                Thread.sleep(POLL_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                synchronized (OpenWatch.class) {
                    watching = false;
                }
                return;
            }
            long now = System.nanoTime();
            if (scan(now)) {
                idleSince = now;
            } else if (now - idleSince > TimeUnit.MILLISECONDS.toNanos(IDLE_STOP_MS)) {
                synchronized (OpenWatch.class) {
                    watching = false;
                }
                // an open that began before it saw watching == false is seen here (volatile order:
                // begin() marks its slot, then reads the flag; this wrote the flag, then reads the slots)
                if (!scan(System.nanoTime())) {
                    return;
                }
                synchronized (OpenWatch.class) {
                    if (watching) {
                        return;     // a begin() started another watcher meanwhile
                    }
                    watching = true;
                }
                idleSince = System.nanoTime();
            }
        }
    }

    /** Looks at every slot; frees opens that wait on a FIFO; whether any open was in progress. */
    private static boolean scan(long now) {
        boolean busy = false;
        for (Slot s : SLOTS) {
            Thread owner = s.owner.get();
            if (owner == null || !owner.isAlive()) {
                SLOTS.remove(s);
                continue;
            }
            long seq = s.seq;
            if ((seq & 1) == 0) {
                continue;
            }
            busy = true;
            SafeDirectory dir = s.dir;
            Path name = s.name;
            long since = s.since;
            long waited = now - since;
            if (s.seq != seq || dir == null || name == null) {
                continue;
            }
            if (s.released != seq && waited >= TimeUnit.MILLISECONDS.toNanos(RELEASE_AFTER_MS)) {
                s.released = seq;
                release(dir, name);
            } else if (s.reported != seq && waited >= TimeUnit.MILLISECONDS.toNanos(REPORT_AFTER_MS)) {
                s.reported = seq;
                log("A file tool's thread ({}) has waited {} s in the open of {}: a slow file system, or a process "
                        + "that put a named pipe (FIFO) in place of the file and removed it again while it was "
                        + "opened; then nothing can open that pipe's other end and the thread stays blocked (a "
                        + "search still ends at its deadline, without it){}", owner.getName(),
                        TimeUnit.NANOSECONDS.toSeconds(waited), dir.path().resolve(name));
            }
        }
        return busy;
    }

    /** Opens and closes the other end of {@code name} when it is a FIFO (never a file or a device). */
    private static void release(SafeDirectory dir, Path name) {
        try {
            BasicFileAttributes a = dir.attributes(name);
            if (!a.isOther() || !isFifo(dir.path().resolve(name))) {
                return;
            }
            SeekableByteChannel other = dir.openUnwatched(name, OTHER_END);
            other.close();      // the waiting open has its other end: it returns
            log("A file tool's open of {} waited on a named pipe (FIFO) that a process put in place of a file; it was "
                    + "released and the FIFO refused{}", dir.path().resolve(name));
        } catch (IOException | RuntimeException e) {
            // gone, replaced or closed meanwhile: the open returned or failed on its own
        }
    }

    private static boolean isFifo(Path p) {
        try {
            Object mode = Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            return mode instanceof Integer m && (m & S_IFMT) == S_IFIFO;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return true;    // no "unix" view: a special file a process without privileges can make is a FIFO
        }
    }

    /** A WARN at most once a minute (a job can cause these at will); the last argument counts the rest. */
    private static synchronized void log(String format, Object... args) {
        long now = System.nanoTime();
        if (lastLogNanos != 0 && now - lastLogNanos < TimeUnit.MINUTES.toNanos(1)) {
            unlogged++;
            return;
        }
        Object[] all = java.util.Arrays.copyOf(args, args.length + 1);
        all[args.length] = unlogged == 0 ? "." : " (" + unlogged + " more such messages held back in the last minute).";
        LOG.warn(format, all);
        lastLogNanos = now;
        unlogged = 0;
    }

    /** One thread's open in progress: written only by its thread, read by the watcher. */
    static final class Slot {
        private final WeakReference<Thread> owner;
        private volatile SafeDirectory dir;
        private volatile Path name;
        private volatile long since;
        /** Odd while an open is in progress; each open has its own odd value. */
        private volatile long seq;
        /** The {@code seq} of the open the watcher last released. */
        private volatile long released;
        /** The {@code seq} of the open the watcher last reported as waiting long. */
        private volatile long reported;

        private Slot(Thread owner) {
            this.owner = new WeakReference<>(owner);
        }

        /** Ends the open marked by {@link OpenWatch#begin}. */
        void end() {
            seq++;
            dir = null;
            name = null;
        }
    }
}
