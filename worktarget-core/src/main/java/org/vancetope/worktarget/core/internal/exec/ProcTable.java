package org.vancetope.worktarget.core.internal.exec;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * Reads Linux's {@code /proc} for the tree kill of {@link ProcessTree}: lists the processes that belong to
 * a job by session, process group or environment cookie ({@value ProcessTree#COOKIE_VAR}), and parses the
 * fields of {@code /proc/<pid>/stat} that decide membership (group, session, start time).
 *
 * <p>It does not signal or wait for processes, and reads only what it is asked to; every read copes with
 * a process that is gone or not ours to read. Stateless; thread-safe.
 */
final class ProcTable {
    /** The root of the process file system. */
    static final Path PROC = Path.of("/proc");

    private static final byte[] PREFIX = (ProcessTree.COOKIE_VAR + "=").getBytes(StandardCharsets.US_ASCII);
    /** The line of {@code /proc/vmstat} that counts the out-of-memory killer's kills, with its blank. */
    private static final String OOM_KILL = "oom_kill ";

    private ProcTable() {
    }

    /**
     * Adds every process of /proc that carries one of the cookies or belongs to the session or group
     * of one of the leaders.
     *
     * @return false when the listing was cut short
     */
    static boolean scan(Map<Long, ProcessHandle> out, long self, Set<String> cookies, Set<Long> leaders,
                        long floorTicks) {
        return eachProcess(self, (pid, p) -> {
            if (out.containsKey(pid)) {
                return;
            }
            Stat stat = Stat.read(p.resolve("stat"));
            if (stat == null || stat.startTicks() < floorTicks) {
                return; // gone, or older than every tree's root: not a member of any of them
            }
            boolean member = leaders.contains(stat.group()) || leaders.contains(stat.session());
            if (!member && !cookies.isEmpty()) {
                String cookie = cookieOf(p.resolve("environ"));
                member = cookie != null && cookies.contains(cookie);
            }
            if (member) {
                ProcessHandle.of(pid).ifPresent(ph -> out.put(pid, ph));
            }
        });
    }

    /**
     * Calls the action with each process of /proc but this one: its pid and its directory.
     *
     * @return false when the listing was cut short
     */
    private static boolean eachProcess(long self, BiConsumer<Long, Path> action) {
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(PROC)) {
            for (Path p : dir) {
                String name = p.getFileName().toString();
                if (name.isEmpty() || !Character.isDigit(name.charAt(0))) {
                    continue;
                }
                long pid;
                try {
                    pid = Long.parseLong(name);
                } catch (NumberFormatException e) {
                    continue;
                }
                if (pid != self) {
                    action.accept(pid, p);
                }
            }
            return true;
        } catch (IOException | DirectoryIteratorException e) {
            // Processes come and go while /proc is listed.
            return false;
        }
    }

    /**
     * The processes of /proc (other than this one) that carry a job cookie, and the cookie each carries.
     *
     * @param self this JVM's pid, skipped
     * @return cookies by pid; a listing cut short is made again (up to three times in all), since this one
     *         runs once per JVM and a carrier it misses is never looked for again
     */
    static Map<Long, String> cookieCarriers(long self) {
        Map<Long, String> out = new LinkedHashMap<>();
        BiConsumer<Long, Path> collect = (pid, p) -> {
            String cookie = cookieOf(p.resolve("environ"));
            if (cookie != null) {
                out.put(pid, cookie);
            }
        };
        for (int listing = 1; !eachProcess(self, collect) && listing < 3; listing++) {
            // cut short while processes came and went: what was read stays, the rest is read again
        }
        return out;
    }

    /**
     * How many processes Linux's out-of-memory killer has killed since boot ({@code oom_kill} of
     * {@code /proc/vmstat}, Linux 4.13 and later; memory limits of control groups count too).
     *
     * @return the count, or -1 where it cannot be read
     */
    static long oomKills() {
        try {
            return oomKills(Files.readAllBytes(PROC.resolve("vmstat")));
        } catch (IOException | SecurityException e) {
            return -1;
        }
    }

    /**
     * The {@code oom_kill} count of a {@code /proc/vmstat} text.
     *
     * @param vmstat the file's bytes: lines of "name value"
     * @return the count, or -1 when the line is missing or malformed
     */
    static long oomKills(byte[] vmstat) {
        byte[] name = OOM_KILL.getBytes(StandardCharsets.US_ASCII);
        for (int line = 0; line < vmstat.length; ) {
            int end = line;
            while (end < vmstat.length && vmstat[end] != '\n') {
                end++;
            }
            if (end - line > name.length && regionEquals(vmstat, line, name)) {
                long value = 0;
                for (int i = line + name.length; i < end; i++) {
                    if (vmstat[i] < '0' || vmstat[i] > '9' || value > Long.MAX_VALUE / 10 - 1) {
                        return -1;
                    }
                    value = value * 10 + (vmstat[i] - '0');
                }
                return value;
            }
            line = end + 1;
        }
        return -1;
    }

    /**
     * The fields of {@code /proc/<pid>/stat} a scan needs: the process group and session (a member of the
     * session or group led by a job shell belongs to the job even when it cleared its environment and was
     * re-parented — job shells lead both through setsid) and the start time.
     *
     * @param group the process group id
     * @param session the session id
     * @param startTicks the start time in clock ticks since boot
     */
    record Stat(long group, long session, long startTicks) {
        /** Field 22 (starttime), counted from the field after the command's closing parenthesis (field 3). */
        private static final int START_TIME_FROM_STATE = 19;

        /** Reads and parses a stat file; null when it is gone, unreadable or not in the expected form. */
        static Stat read(Path stat) {
            byte[] b;
            try {
                b = Files.readAllBytes(stat);
            } catch (IOException | SecurityException e) {
                return null;
            }
            return parse(b);
        }

        /** Parses "pid (comm) state ppid pgrp session … starttime …"; comm may hold blanks and parentheses. */
        static Stat parse(byte[] b) {
            int i = b.length - 1;
            while (i >= 0 && b[i] != ')') {
                i--;
            }
            if (i < 0) {
                return null;
            }
            long group = -1;
            long session = -1;
            int field = 0; // 0 = state, 1 = ppid, 2 = pgrp, 3 = session, …
            int pos = i + 2;
            while (pos < b.length) {
                int endOfField = pos;
                long value = 0;
                boolean number = true;
                while (endOfField < b.length && b[endOfField] != ' ' && b[endOfField] != '\n') {
                    byte c = b[endOfField];
                    if (c >= '0' && c <= '9' && number) {
                        value = value * 10 + (c - '0');
                    } else {
                        number = false;
                    }
                    endOfField++;
                }
                if (field == 2 && number) {
                    group = value;
                } else if (field == 3 && number) {
                    session = value;
                } else if (field == START_TIME_FROM_STATE) {
                    return number && group >= 0 && session >= 0 ? new Stat(group, session, value) : null;
                }
                field++;
                pos = endOfField + 1;
            }
            return null;
        }
    }

    /** The value of the cookie variable in a NUL-separated environ file, or null. */
    private static String cookieOf(Path environ) {
        try (InputStream in = Files.newInputStream(environ)) {
            byte[] data = in.readAllBytes();
            int start = 0;
            for (int i = 0; i <= data.length; i++) {
                if (i == data.length || data[i] == 0) {
                    if (i - start > PREFIX.length && regionEquals(data, start, PREFIX)) {
                        return new String(data, start + PREFIX.length, i - start - PREFIX.length, StandardCharsets.US_ASCII);
                    }
                    start = i + 1;
                }
            }
            return null;
        } catch (IOException | SecurityException e) {
            return null; // gone, or not ours to read
        }
    }

    private static boolean regionEquals(byte[] data, int from, byte[] needle) {
        for (int j = 0; j < needle.length; j++) {
            if (data[from + j] != needle[j]) {
                return false;
            }
        }
        return true;
    }
}
