package org.vancetope.worktarget.testkit;

import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.vancetope.worktarget.spi.FrameChannel;

/**
 * Two connected in-memory {@link FrameChannel}s: what {@link #left()} sends arrives at the handler of
 * {@link #right()} and vice versa. Each direction queues frames; a direction is not writable while
 * {@code highWaterMark} frames are queued and becomes writable again when the queue drains to
 * {@code lowWaterMark}, so back-pressure is real. A send completes when its frame is taken off the
 * queue for delivery (like a socket write), and fails when the pair closes first.
 *
 * <p>Two delivery modes: <b>manual</b> (default) — nothing moves until the test calls
 * {@link #deliverAll()} or {@link #deliverNext(InMemoryFrameChannel)}, fully deterministic on the
 * test thread; <b>threaded</b> — one daemon thread per direction delivers continuously. An optional
 * wire hop encodes each frame when it is sent and decodes it on delivery (e.g. through a JSON codec).
 *
 * <pre>{@code
 * InMemoryFramePair<TransferFrame> pair = InMemoryFramePair.<TransferFrame>builder().highWaterMark(4).build();
 * pair.left().onReceive(brainConn::onFrame);
 * pair.right().onReceive(footConn::onFrame);
 * CompletableFuture<TransferResult> r = brainConn.send(file, "a.bin", null, null);
 * pair.deliverAll();
 * }</pre>
 *
 * <p>It does not lose, duplicate or reorder frames by itself; tests do that explicitly.
 *
 * @param <F> the frame type
 */
public final class InMemoryFramePair<F> implements AutoCloseable {
    private final Object lock = new Object();
    private final InMemoryFrameChannel<F> left;
    private final InMemoryFrameChannel<F> right;
    private final int highWaterMark;
    private final int lowWaterMark;
    private final boolean threaded;
    private final Function<F, Supplier<F>> wire;
    private final List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
    private boolean closed;

    private InMemoryFramePair(Builder<F> b) {
        this.highWaterMark = b.highWaterMark;
        this.lowWaterMark = b.lowWaterMark < 0 ? b.highWaterMark / 2 : b.lowWaterMark;
        this.threaded = b.threaded;
        this.wire = b.wire;
        this.left = new InMemoryFrameChannel<>(this, b.name + "-left");
        this.right = new InMemoryFrameChannel<>(this, b.name + "-right");
        left.peer = right;
        right.peer = left;
        if (threaded) {
            startThread(left);
            startThread(right);
        }
    }

    /**
     * A builder.
     *
     * @param <F> the frame type
     * @return a builder with high-water mark 16, manual delivery, no wire hop
     */
    public static <F> Builder<F> builder() {
        return new Builder<>();
    }

    /**
     * The left channel.
     *
     * @return the channel
     */
    public InMemoryFrameChannel<F> left() {
        return left;
    }

    /**
     * The right channel.
     *
     * @return the channel
     */
    public InMemoryFrameChannel<F> right() {
        return right;
    }

    /**
     * Delivers queued frames in both directions until no deliverable frame is left (manual mode).
     * Frames sent by handlers during delivery are delivered too. Stalled directions are skipped.
     *
     * @return the number of frames delivered
     */
    public int deliverAll() {
        requireManual();
        int n = 0;
        boolean progress = true;
        while (progress) {
            progress = false;
            if (deliverNext(left)) {
                n++;
                progress = true;
            }
            if (deliverNext(right)) {
                n++;
                progress = true;
            }
        }
        return n;
    }

    /**
     * Delivers the oldest frame sent by {@code from} to its peer (manual mode).
     *
     * @param from the sending channel
     * @return false when nothing was deliverable
     */
    public boolean deliverNext(InMemoryFrameChannel<F> from) {
        requireManual();
        return deliverOne(from, false);
    }

    /**
     * Removes the oldest queued frame sent by {@code from} without delivering it (a lost frame); its
     * send still completes, as a socket write would.
     *
     * @param from the sending channel
     * @return the dropped frame, or null when the queue was empty
     */
    public F dropNext(InMemoryFrameChannel<F> from) {
        requireManual();
        Pending<F> p;
        synchronized (lock) {
            p = from.queue.poll();
        }
        if (p == null) {
            return null;
        }
        F frame = p.frame.get();
        p.written.complete(null);
        afterDequeue(from);
        return frame;
    }

    private void requireManual() {
        if (threaded) {
            throw new IllegalStateException("deliver/drop are for manual mode; this pair delivers on its own threads");
        }
    }

    /**
     * Exceptions thrown by receive handlers or by the wire hop (a strict test asserts this is empty).
     *
     * @return a snapshot
     */
    public List<Throwable> failures() {
        synchronized (failures) {
            return List.copyOf(failures);
        }
    }

    /**
     * Fails when a receive handler or the wire hop threw: call it at teardown.
     *
     * @throws AssertionError listing the exceptions
     */
    public void assertNoFailures() {
        List<Throwable> f = failures();
        if (!f.isEmpty()) {
            AssertionError e = new AssertionError(f.size() + " exception(s) reached the in-memory transport: " + f);
            f.forEach(e::addSuppressed);
            throw e;
        }
    }

    /**
     * Whether the pair is closed.
     *
     * @return true after {@link #close()}
     */
    public boolean isClosed() {
        synchronized (lock) {
            return closed;
        }
    }

    /**
     * Closes both channels: queued frames are discarded, their sends fail, writability callbacks
     * run, and each side's close listener runs.
     */
    @Override
    public void close() {
        List<Pending<F>> dropped = new ArrayList<>();
        List<Runnable> callbacks = new ArrayList<>();
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            for (InMemoryFrameChannel<F> c : List.of(left, right)) {
                dropped.addAll(c.queue);
                c.queue.clear();
                callbacks.addAll(c.writableCallbacks);
                c.writableCallbacks.clear();
                if (c.closeListener != null) {
                    callbacks.add(c.closeListener);
                }
            }
            lock.notifyAll();
        }
        dropped.forEach(p -> p.written.completeExceptionally(new ClosedChannelException()));
        callbacks.forEach(this::runSafely);
    }

    // ---------------------------------------------------------------- internals

    private record Pending<F>(Supplier<F> frame, CompletableFuture<Void> written) {
    }

    CompletionStage<Void> send(InMemoryFrameChannel<F> from, F frame) {
        Objects.requireNonNull(frame, "frame");
        CompletableFuture<Void> written = new CompletableFuture<>();
        Supplier<F> onWire;
        try {
            onWire = wire == null ? () -> frame : wire.apply(frame);
        } catch (RuntimeException e) {
            failures.add(e);
            written.completeExceptionally(e);
            return written;
        }
        synchronized (lock) {
            if (closed) {
                written.completeExceptionally(new ClosedChannelException());
                return written;
            }
            from.queue.add(new Pending<>(onWire, written));
            from.sentCount++;
            lock.notifyAll();
        }
        return written;
    }

    boolean isOpen() {
        synchronized (lock) {
            return !closed;
        }
    }

    boolean isWritable(InMemoryFrameChannel<F> from) {
        synchronized (lock) {
            return !closed && !from.pausedWritable && from.queue.size() < highWaterMark;
        }
    }

    void whenWritable(InMemoryFrameChannel<F> from, Runnable callback) {
        boolean now;
        synchronized (lock) {
            now = closed || (!from.pausedWritable && from.queue.size() < highWaterMark);
            if (!now) {
                from.writableCallbacks.add(callback);
            }
        }
        if (now) {
            runSafely(callback);
        }
    }

    void setStalled(InMemoryFrameChannel<F> from, boolean stalled) {
        synchronized (lock) {
            from.stalled = stalled;
            lock.notifyAll();
        }
    }

    void setPausedWritable(InMemoryFrameChannel<F> from, boolean paused) {
        synchronized (lock) {
            from.pausedWritable = paused;
        }
        if (!paused) {
            afterDequeue(from);
        }
    }

    int queued(InMemoryFrameChannel<F> from) {
        synchronized (lock) {
            return from.queue.size();
        }
    }

    private boolean deliverOne(InMemoryFrameChannel<F> from, boolean blocking) {
        Pending<F> p;
        Consumer<F> handler;
        synchronized (lock) {
            while (true) {
                if (closed) {
                    return false;
                }
                if (!from.stalled && !from.queue.isEmpty()) {
                    break;
                }
                if (!blocking) {
                    return false;
                }
                try {
                    lock.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            p = from.queue.poll();
            handler = from.peer.handler;
        }
        p.written.complete(null);
        afterDequeue(from);
        F frame;
        try {
            frame = p.frame.get();
        } catch (RuntimeException e) {
            failures.add(e);
            return true;
        }
        if (handler != null) {
            try {
                handler.accept(frame);
            } catch (RuntimeException | Error e) {
                failures.add(e);
            }
        }
        return true;
    }

    private void afterDequeue(InMemoryFrameChannel<F> from) {
        List<Runnable> ready = List.of();
        synchronized (lock) {
            if (!from.pausedWritable && from.queue.size() <= lowWaterMark && !from.writableCallbacks.isEmpty()) {
                ready = new ArrayList<>(from.writableCallbacks);
                from.writableCallbacks.clear();
            }
        }
        ready.forEach(this::runSafely);
    }

    private void runSafely(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            failures.add(e);
        }
    }

    private void startThread(InMemoryFrameChannel<F> from) {
        Thread t = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted() && isOpen()) {
                deliverOne(from, true);
            }
        }, from.id() + "-delivery");
        t.setDaemon(true);
        t.start();
    }

    /**
     * Builds an {@link InMemoryFramePair}.
     *
     * @param <F> the frame type
     */
    public static final class Builder<F> {
        private int highWaterMark = 16;
        private int lowWaterMark = -1;
        private boolean threaded;
        private Function<F, Supplier<F>> wire;
        private String name = "mem";

        private Builder() {
        }

        /**
         * Queued frames per direction at which the sender's channel stops being writable (default 16).
         *
         * @param frames at least 1
         * @return this
         */
        public Builder<F> highWaterMark(int frames) {
            this.highWaterMark = frames;
            return this;
        }

        /**
         * Queued frames at or below which a non-writable direction becomes writable again (default
         * half the high-water mark).
         *
         * @param frames below the high-water mark
         * @return this
         */
        public Builder<F> lowWaterMark(int frames) {
            this.lowWaterMark = frames;
            return this;
        }

        /**
         * Delivers on one daemon thread per direction instead of on {@link #deliverAll()}.
         *
         * @return this
         */
        public Builder<F> threaded() {
            this.threaded = true;
            return this;
        }

        /**
         * Sends every frame through a wire hop: {@code encode} runs on the sending thread,
         * {@code decode} on delivery.
         *
         * @param encode frame to wire form
         * @param decode wire form to frame
         * @param <W> the wire form, e.g. {@code byte[]}
         * @return this
         */
        public <W> Builder<F> wire(Function<? super F, ? extends W> encode, Function<? super W, ? extends F> decode) {
            Objects.requireNonNull(encode, "encode");
            Objects.requireNonNull(decode, "decode");
            this.wire = f -> {
                W w = encode.apply(f);
                return () -> decode.apply(w);
            };
            return this;
        }

        /**
         * The prefix of the channel ids (default {@code "mem"}).
         *
         * @param name the prefix
         * @return this
         */
        public Builder<F> name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * Builds the pair (and starts its threads in threaded mode).
         *
         * @return the pair
         */
        public InMemoryFramePair<F> build() {
            if (highWaterMark < 1) {
                throw new IllegalArgumentException("highWaterMark must be at least 1");
            }
            if (lowWaterMark >= highWaterMark) {
                throw new IllegalArgumentException("lowWaterMark must be below highWaterMark");
            }
            return new InMemoryFramePair<>(this);
        }
    }

    /**
     * One end of an {@link InMemoryFramePair}.
     *
     * @param <F> the frame type
     */
    public static final class InMemoryFrameChannel<F> implements FrameChannel<F> {
        private final InMemoryFramePair<F> pair;
        private final String id;
        private final ArrayDeque<Pending<F>> queue = new ArrayDeque<>();
        private final List<Runnable> writableCallbacks = new ArrayList<>();
        private InMemoryFrameChannel<F> peer;
        private volatile Consumer<F> handler;
        private Runnable closeListener;
        private boolean stalled;
        private boolean pausedWritable;
        private long sentCount;

        private InMemoryFrameChannel(InMemoryFramePair<F> pair, String id) {
            this.pair = pair;
            this.id = id;
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public boolean isOpen() {
            return pair.isOpen();
        }

        @Override
        public CompletionStage<Void> send(F frame) {
            return pair.send(this, frame);
        }

        @Override
        public boolean isWritable() {
            return pair.isWritable(this);
        }

        @Override
        public void whenWritable(Runnable callback) {
            pair.whenWritable(this, Objects.requireNonNull(callback, "callback"));
        }

        /**
         * Sets the handler of frames arriving at this channel (sent by the peer).
         *
         * @param handler the handler
         * @return this
         */
        public InMemoryFrameChannel<F> onReceive(Consumer<F> handler) {
            this.handler = Objects.requireNonNull(handler, "handler");
            return this;
        }

        /**
         * Sets what runs when the pair closes (e.g. {@code connection::onClose}).
         *
         * @param listener the listener
         * @return this
         */
        public InMemoryFrameChannel<F> onClose(Runnable listener) {
            synchronized (pair.lock) {
                this.closeListener = Objects.requireNonNull(listener, "listener");
            }
            return this;
        }

        /**
         * Holds back (or releases) the frames this channel sends: they queue but are not delivered,
         * so the queue fills and writability drops — a slow peer.
         *
         * @param stalled whether delivery is held back
         */
        public void stall(boolean stalled) {
            pair.setStalled(this, stalled);
        }

        /**
         * Forces this channel to report not writable (or lifts that), independent of its queue.
         *
         * @param paused whether writability is forced off
         */
        public void pauseWritable(boolean paused) {
            pair.setPausedWritable(this, paused);
        }

        /**
         * Frames sent by this channel and not yet delivered.
         *
         * @return the queue length
         */
        public int queued() {
            return pair.queued(this);
        }

        /**
         * How many frames this channel has sent so far.
         *
         * @return the count
         */
        public long sentCount() {
            synchronized (pair.lock) {
                return sentCount;
            }
        }

        @Override
        public String toString() {
            return "InMemoryFrameChannel[" + id + "]";
        }
    }
}
