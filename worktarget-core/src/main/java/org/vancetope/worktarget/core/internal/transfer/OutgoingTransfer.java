package org.vancetope.worktarget.core.internal.transfer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.core.transfer.TransferAttrs;
import org.vancetope.worktarget.core.transfer.TransferChunk;
import org.vancetope.worktarget.core.transfer.TransferComplete;
import org.vancetope.worktarget.core.transfer.TransferFinish;
import org.vancetope.worktarget.core.transfer.TransferFrame;
import org.vancetope.worktarget.core.transfer.TransferInit;
import org.vancetope.worktarget.core.transfer.TransferInitResponse;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferResult;
import org.vancetope.worktarget.core.transfer.TransferResume;
import org.vancetope.worktarget.core.transfer.TransferResumeResponse;
import org.vancetope.worktarget.core.transfer.TransferScheduler;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.FrameChannel;

/**
 * The sender of one transfer: announces the file, streams it chunk by chunk with at most
 * {@code maxChunksInFlight} chunks handed to the channel and not yet written, pauses while the
 * channel is not writable, and stops as soon as a {@code transfer_complete} arrives, early or not.
 * State changes are synchronized on the instance; frames are sent outside the lock where they
 * could re-enter.
 */
final class OutgoingTransfer {
    private static final Logger LOG = LoggerFactory.getLogger(OutgoingTransfer.class);

    final TransferEngine engine;
    final FrameChannel<TransferFrame> channel;
    /** Whether the connection negotiated {@code transfer.resume}: a lost connection then leaves a resume id. */
    private final boolean resumable;
    /** Whether this takes up a kept transfer ({@code transfer_resume} instead of {@code transfer_init}). */
    private final boolean resuming;
    /** The next chunk names its offset (the first after a resume). */
    private boolean offsetDue;
    final String id;
    final CompletableFuture<TransferResult> result = new CompletableFuture<>();
    private final String sourceName;
    private final String target;
    private final String dirName;
    private final long totalSize;
    private String hash;
    private final TransferAttrs attrs;
    /** With the hash trailer: the file's SHA-256 as it is read, sent with the last chunk; else null. */
    private final MessageDigest trailer;
    /** With {@code transfer.zstd}: the level chunks are compressed with; 0 to send every chunk raw. */
    private final int zstdLevel;
    /** Why a source file that ended early fails its transfer, and what to do. */
    private static final String SHORTER = "source file changed during the transfer (it is shorter than announced); "
            + "send it again once it no longer changes";
    /** Raw bytes per chunk: this end's chunk size, held to the one the peer announced. */
    private final int chunkSize;
    /** The transfer's compressor while it reads chunks (zstd only); closed with the source. */
    private ChunkCompression.Compressor compressor;

    /** Written under the lock; volatile so that a write completion can read it without the lock. */
    private volatile SenderState state = SenderState.PREPARING;
    private SeekableByteChannel in;
    private long sent;
    private long seq;
    /**
     * Chunks handed to the channel and not yet written. Atomic, as is {@link #pumping}: a write completes
     * on the connection's I/O thread, which must not wait for the lock while the pump reads and hashes a
     * chunk under it (that stalled the connection's other writes and reads for each chunk's read).
     */
    private final AtomicInteger inFlight = new AtomicInteger();
    /** Whether a pump runs (at most one does). */
    private final AtomicBoolean pumping = new AtomicBoolean();
    /**
     * Set by every request for a pump ({@link #requestPump}), cleared by the pump before each round: a
     * request that finds a pump running is served by that pump's next round instead of being lost.
     */
    private final AtomicBoolean pumpWanted = new AtomicBoolean();
    private boolean waitingWritable;
    private long deadline;
    private long lastActivity;
    private TransferScheduler.Cancellable timer;

    /**
     * @param source the open source file, positioned at its start; owned (closed) by this transfer
     * @param chunkSize the raw bytes per chunk on this connection
     */
    OutgoingTransfer(TransferEngine engine, FrameChannel<TransferFrame> channel, String id, SeekableByteChannel source,
                     String sourceName, String target, String dirName, long totalSize, String hash, TransferAttrs attrs,
                     boolean hashTrailer, int zstdLevel, boolean resumable, boolean resuming, int chunkSize) {
        this.chunkSize = chunkSize;
        this.resumable = resumable;
        this.resuming = resuming;
        this.engine = engine;
        this.channel = channel;
        this.id = id;
        this.in = source;
        this.sourceName = sourceName;
        this.target = target;
        this.dirName = dirName;
        this.totalSize = totalSize;
        this.hash = hash;
        this.attrs = attrs;
        this.trailer = hashTrailer ? Sha256.newDigest() : null;
        this.zstdLevel = zstdLevel;
        this.lastActivity = engine.now();
    }

    private void move(SenderState to) {
        state = SenderState.TABLE.check(state, to);
    }

    synchronized long lastActivity() {
        return lastActivity;
    }

    synchronized SenderState state() {
        return state;
    }

    private void armTimer() {
        lastActivity = engine.now();
        deadline = lastActivity + engine.phaseTimeout().toMillis();
        if (timer != null) {
            timer.cancel();
        }
        timer = engine.scheduler.schedule(engine.phaseTimeout(), this::onTimer);
    }

    void start() {
        TransferFrame init;
        synchronized (this) {
            move(SenderState.AWAITING_INIT_RESPONSE);
            armTimer();
            init = resuming ? new TransferResume(id, target, dirName, totalSize, hash)
                    : new TransferInit(id, sourceName, target, dirName, totalSize, hash, attrs,
                    zstdLevel > 0 ? TransferInit.ZSTD : null);
        }
        channel.send(init).whenComplete((v, err) -> {
            if (err != null) {
                abort(ErrorCode.OFFLINE, "connection closed");
            }
        });
    }

    void onInitResponse(TransferInitResponse r) {
        synchronized (this) {
            if (!r.ok()) {
                finish(false, r.code() == null ? ErrorCode.INTERNAL : r.code(),
                        r.error() == null ? "receiver refused the transfer" : r.error(), 0);
                return;
            }
            startStreaming();
        }
        requestPump();
    }

    /** The receiver took the transfer: streaming starts, and the init's timer stops. Caller holds the lock. */
    private void startStreaming() {
        move(SenderState.STREAMING);
        lastActivity = engine.now();
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    /**
     * The answer to {@code transfer_resume}: positions the source at the receiver's offset (with the hash
     * trailer, hashing the part before it, which is not sent again) and streams the rest.
     */
    void onResumeResponse(TransferResumeResponse r) {
        synchronized (this) {
            if (!resuming || state != SenderState.AWAITING_INIT_RESPONSE) {
                throw new org.vancetope.worktarget.core.transfer.IllegalTransitionException(state, SenderState.STREAMING);
            }
            if (!r.ok()) {
                finish(false, r.failureCode(), r.error() == null ? "receiver refused the resume" : r.error(), 0, false);
                return;
            }
            if (r.offset() > totalSize) {
                finish(false, ErrorCode.BAD_FRAME, "receiver's offset " + r.offset() + " is beyond the file's " + totalSize
                        + " bytes", 0, false);
                return;
            }
            try {
                if (trailer != null) {
                    in.position(0);
                    Sha256.update(trailer, in, r.offset());
                }
                in.position(r.offset());
            } catch (java.io.EOFException e) {
                sourceFailure(ErrorCode.SOURCE_CHANGED, SHORTER, 0);
                return;
            } catch (IOException e) {
                sourceFailure(ErrorCode.INTERNAL, "cannot read the source file: " + e.getClass().getSimpleName(), 0);
                return;
            }
            sent = r.offset();
            seq = r.nextSeq();
            offsetDue = true;
            startStreaming();
        }
        requestPump();
    }

    synchronized void onComplete(TransferComplete c) {
        if (state == SenderState.AWAITING_INIT_RESPONSE && !resuming) {
            throw new org.vancetope.worktarget.core.transfer.IllegalTransitionException(state, SenderState.STREAMING);
        }
        String error = c.ok() ? null : c.error() == null ? "receiver failed" : c.error();
        ErrorCode code = c.failureCode();
        if (c.ok() && hash == null && trailer != null && in != null) {
            // a resumed transfer the receiver had verified before the cut: nothing was read, so hash it here
            try {
                hash = Sha256.of(in).hash();
            } catch (IOException e) {
                LOG.debug("Cannot hash the source of transfer {} for its result", id, e);
            }
        }
        finish(c.ok(), code, error, c.bytesWritten());
    }

    /**
     * Asks for a pump round: one runs on the executor unless a pump runs already, in which case that
     * pump goes round once more. No request is lost: the pump clears {@link #pumpWanted} before a round
     * and looks at it again after letting go of {@link #pumping}.
     */
    private void requestPump() {
        pumpWanted.set(true);
        if (pumping.get()) {
            return;
        }
        try {
            engine.executor.execute(this::pump);
        } catch (RuntimeException e) {
            abort(ErrorCode.INTERNAL, "cannot schedule the sender: " + e.getClass().getSimpleName());
        }
    }

    /** Why {@link #pumpWhileAllowed} stopped. */
    private enum Stop {
        /** The transfer left streaming or failed, the window is full, or another pump waits for writability. */
        DONE,
        /** The channel pushes back, and this pump is to wait for it (it set {@link #waitingWritable}). */
        UNWRITABLE
    }

    /**
     * Sends chunks while allowed, in rounds while rounds are asked for ({@link #requestPump}: the
     * receiver's go-ahead, write completions, writability). At most one pump runs ({@link #pumping}); one
     * that stops at an unwritable channel lets go before it registers for writability, since the callback
     * may run at once, inside the registration.
     */
    private void pump() {
        while (pumpWanted.get() && pumping.compareAndSet(false, true)) {
            pumpWanted.set(false);
            Stop why;
            try {
                why = pumpWhileAllowed();
            } finally {
                pumping.set(false);
            }
            if (why == Stop.UNWRITABLE) {
                channel.whenWritable(this::onWritable);
            }
        }
    }

    /** Sends chunks until the window is full, the channel pushes back, or the transfer leaves streaming. */
    private Stop pumpWhileAllowed() {
        while (true) {
            TransferChunk chunk;
            long done;
            synchronized (this) {
                if (state != SenderState.STREAMING) {
                    return Stop.DONE;
                }
                if (inFlight.get() >= engine.settings.maxChunksInFlight()) {
                    return Stop.DONE;       // the next write completion asks for a round
                }
                if (!channel.isOpen()) {
                    finish(false, ErrorCode.OFFLINE, "connection closed", 0);
                    return Stop.DONE;
                }
                if (!channel.isWritable()) {
                    if (waitingWritable) {
                        return Stop.DONE;
                    }
                    waitingWritable = true;
                    return Stop.UNWRITABLE;
                }
                chunk = readChunk();
                if (chunk == null) {
                    return Stop.DONE;
                }
                inFlight.incrementAndGet();
                sent += chunk.dataLength();
                done = sent;
                seq++;
                lastActivity = engine.now();
                if (chunk.last()) {
                    move(SenderState.AWAITING_COMPLETE);
                    closeSource();
                    armTimer();
                }
            }
            CompletionStage<Void> written = channel.send(chunk);
            engine.notifyProgress(id, TransferListener.Role.SENDER, done, totalSize);
            written.whenComplete((v, err) -> onWritten(err));
        }
    }

    private void onWritable() {
        synchronized (this) {
            waitingWritable = false;
        }
        requestPump();
    }

    /** A chunk was written (or not): runs on the I/O thread, without the lock unless the write failed. */
    private void onWritten(Throwable err) {
        inFlight.decrementAndGet();
        if (err != null) {
            synchronized (this) {
                if (state != SenderState.FINISHED) {
                    finish(false, ErrorCode.OFFLINE, "connection closed while sending", sent);
                }
            }
            return;
        }
        if (state == SenderState.STREAMING) {
            requestPump();
        }
    }

    /** Reads the next chunk, compressed when that pays and the transfer announced zstd; null on failure. */
    private TransferChunk readChunk() {
        TransferChunk raw = readRawChunk();
        if (raw == null || zstdLevel == 0) {
            return raw;
        }
        if (compressor == null) {
            compressor = ChunkCompression.compressor(zstdLevel);
        }
        byte[] packed = compressor.compress(raw.bytes());
        return packed == null ? raw
                : raw.compressedAs(packed, raw.bytes().length);
    }

    /** Reads the next chunk's data; on failure finishes the transfer and returns null. */
    private TransferChunk readRawChunk() {
        int len = (int) Math.min(chunkSize, totalSize - sent);
        byte[] bytes = new byte[len];
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        try {
            while (buf.hasRemaining()) {
                if (in.read(buf) < 0) {
                    sourceFailure(ErrorCode.SOURCE_CHANGED, SHORTER, sent);
                    return null;
                }
            }
        } catch (IOException e) {
            sourceFailure(ErrorCode.INTERNAL, "cannot read the source file: " + e.getClass().getSimpleName(), sent);
            return null;
        }
        boolean last = sent + len == totalSize;
        long offset = offsetDue ? sent : TransferChunk.NO_OFFSET;
        offsetDue = false;
        if (trailer == null) {
            return new TransferChunk(id, seq, bytes, last, null, TransferChunk.RAW, offset);
        }
        trailer.update(bytes);
        if (!last) {
            return new TransferChunk(id, seq, bytes, false, null, TransferChunk.RAW, offset);
        }
        // the file was not read beforehand: what was sent must be the whole file, so it must end here
        try {
            if (in.read(ByteBuffer.allocate(1)) > 0) {
                sourceFailure(ErrorCode.SOURCE_CHANGED, "source file changed during the transfer (it is longer than announced); "
                        + "send it again once it no longer changes", sent);
                return null;
            }
        } catch (IOException e) {
            sourceFailure(ErrorCode.INTERNAL, "cannot read the source file: " + e.getClass().getSimpleName(), sent);
            return null;
        }
        hash = Sha256.format(trailer.digest());
        return new TransferChunk(id, seq, bytes, true, hash, TransferChunk.RAW, offset);
    }

    private void onTimer() {
        synchronized (this) {
            if (state == SenderState.FINISHED) {
                return;
            }
            if (engine.now() < deadline) {
                timer = engine.scheduler.schedule(Duration.ofMillis(deadline - engine.now()), this::onTimer);
                return;
            }
            if (state == SenderState.AWAITING_INIT_RESPONSE) {
                finish(false, ErrorCode.TIMEOUT, "init timeout", 0);
            } else if (state == SenderState.AWAITING_COMPLETE) {
                finish(false, ErrorCode.TIMEOUT, "complete timeout", sent);
            }
        }
    }

    /** Ends the transfer without waiting (channel or endpoint closed, sweep). */
    synchronized void abort(ErrorCode code, String reason) {
        if (state != SenderState.FINISHED) {
            finish(false, code, reason, 0);
        }
    }

    /** The endpoint closes: the transfer ends {@code offline}, without a resume handle (nothing will resume it). */
    synchronized void endpointClosed() {
        if (state != SenderState.FINISHED) {
            finish(false, ErrorCode.OFFLINE, "transfer endpoint closed", 0, false);
        }
    }

    /**
     * Ends the transfer; a lost connection ({@code offline}) of a resumable one leaves its id as the resume
     * handle. Caller holds the lock.
     */
    private void finish(boolean ok, ErrorCode code, String error, long bytesWritten) {
        finish(ok, code, error, bytesWritten, resumable && !ok && code == ErrorCode.OFFLINE);
    }

    /**
     * Fails the transfer because of its source (it changed while it was sent, or cannot be read): the
     * receiver learns why from {@code transfer_finish}'s {@code error} and {@code code}, which matters on an
     * upload, whose tool call waits on the receiving side. Caller holds the lock.
     */
    private void sourceFailure(ErrorCode code, String error, long bytesWritten) {
        finish(false, code, error, bytesWritten, false, true);
    }

    /** Sends transfer_finish, resolves the result, removes the pending entry. Caller holds the lock. */
    private void finish(boolean ok, ErrorCode code, String error, long bytesWritten, boolean canResume) {
        finish(ok, code, error, bytesWritten, canResume, false);
    }

    /**
     * Sends transfer_finish (with the failure's {@code error} and {@code code} when {@code explain}),
     * resolves the result, removes the pending entry. Caller holds the lock.
     */
    private void finish(boolean ok, ErrorCode code, String error, long bytesWritten, boolean canResume,
                        boolean explain) {
        move(SenderState.FINISHED);
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
        closeSource();
        engine.senders.remove(id, this);
        if (channel.isOpen()) {
            channel.send(explain ? new TransferFinish(id, false, error, code) : new TransferFinish(id, ok, null));
        }
        TransferResult r = canResume
                ? new TransferResult(id, false, bytesWritten, hash, error + "; the receiver keeps what arrived: resume "
                + "with resumeId " + id + " within its resumeRetention", ErrorCode.OFFLINE, id)
                : new TransferResult(id, ok, bytesWritten, hash, error, code);
        result.complete(r);
        engine.notifyFinished(TransferListener.Role.SENDER, r);
    }

    /**
     * The caller cancelled the transfer's future (its tool call was cancelled): the transfer ends now, and the
     * receiver is told so and deletes what arrived. Nothing happens once it finished.
     */
    synchronized void cancelledByCaller() {
        if (state == SenderState.FINISHED) {
            return;
        }
        finish(false, ErrorCode.CANCELLED, "the call was cancelled", sent, false, true);
    }

    private void closeSource() {
        if (compressor != null) {
            compressor.close();
            compressor = null;
        }
        if (in != null) {
            try {
                in.close();
            } catch (IOException e) {
                LOG.debug("Closing source of transfer {} failed", id, e);
            }
            in = null;
        }
    }
}
