package org.vancetope.worktarget.core.internal.transfer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.internal.path.StagedFile;
import org.vancetope.worktarget.core.transfer.TargetResolution;
import org.vancetope.worktarget.core.transfer.TransferChunk;
import org.vancetope.worktarget.core.transfer.TransferComplete;
import org.vancetope.worktarget.core.transfer.TransferFinish;
import org.vancetope.worktarget.core.transfer.TransferFrame;
import org.vancetope.worktarget.core.transfer.TransferInit;
import org.vancetope.worktarget.core.transfer.TransferInitResponse;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferResult;
import org.vancetope.worktarget.core.transfer.TransferScheduler;
import org.vancetope.worktarget.core.transfer.TransferScope;
import org.vancetope.worktarget.core.transfer.UploadRequest;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.FrameChannel;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The receiver of one transfer: validates {@code transfer_init} through the confinement gate of its
 * root, appends chunks to a {@link StagedFile} of that root while hashing them, verifies, applies
 * attributes, renames it atomically onto the target by directory handle, and waits for
 * {@code transfer_finish}. Every failure deletes the staging file and
 * leaves an existing target untouched. All methods are synchronized on the instance.
 */
final class IncomingTransfer {
    private static final Logger LOG = LoggerFactory.getLogger(IncomingTransfer.class);
    /** The stable start of every refusal for lack of space, the wire name of the tools' {@code disk_full}. */
    static final String DISK_FULL = ErrorCode.DISK_FULL.wire();
    /** The stable start of every refusal of a compressed chunk (a decompression bomb, corrupt zstd). */
    static final String ZSTD_REFUSED = "zstd_refused";

    final TransferEngine engine;
    /** The connection it runs on; a resumed transfer moves to the new connection. */
    volatile FrameChannel<TransferFrame> channel;
    final String id;
    /**
     * Whoever waits for the outcome (the Brain's upload call). A requested upload kept at a disconnect
     * completes it with an {@code offline} outcome naming the resume id; its resume gets a new one.
     */
    volatile CompletableFuture<TransferResult> result = new CompletableFuture<>();
    private final TransferScope scope;
    /** The Brain's request of an upload (replaced by the request of its resume), or null for a download. */
    private UploadRequest request;
    private ReceiverState state;

    private String hash;
    private long totalSize;
    private StagedFile staging;
    private MessageDigest digest;
    private Integer mode;
    private Instant mtime;
    private long expectedSeq;
    private long received;
    /** Whether the init announced zstd: chunks may then come compressed. */
    private boolean zstd;
    private TransferResult outcome;

    private long deadline;
    private long lastActivity;
    private TransferScheduler.Cancellable timer;

    // transfer.resume: the staging file is kept under a fixed name when the connection ends
    private boolean resumable;
    private ConfinedRoot root;
    private Path targetPath;
    private String target;
    private String dirName;
    /** After a resume: the next chunk must name its offset. */
    private boolean offsetDue;

    IncomingTransfer(TransferEngine engine, FrameChannel<TransferFrame> channel, TransferScope scope, String id,
                     UploadRequest request, ReceiverState initial) {
        this.engine = engine;
        this.channel = channel;
        this.scope = scope;
        this.id = id;
        this.request = request;
        this.state = initial;
        this.lastActivity = engine.now();
        this.deadline = lastActivity + engine.phaseTimeout().toMillis();
    }

    private void move(ReceiverState to) {
        state = ReceiverState.TABLE.check(state, to);
    }

    synchronized long lastActivity() {
        return lastActivity;
    }

    synchronized ReceiverState state() {
        return state;
    }

    private void touch() {
        lastActivity = engine.now();
        deadline = lastActivity + engine.phaseTimeout().toMillis();
    }

    synchronized void armTimer() {
        if (timer != null) {
            timer.cancel();
        }
        long delay = Math.max(0, deadline - engine.now());
        timer = engine.scheduler.schedule(java.time.Duration.ofMillis(delay), this::onTimer);
    }

    // ---------------------------------------------------------------- init

    /**
     * @param trailerAllowed whether the connection negotiated the hash trailer, so that the init may come
     *                       without its hash (it then comes with the last chunk)
     * @param zstdAllowed whether the connection negotiated {@code transfer.zstd}, so that the init may
     *                    announce compressed chunks
     * @param resumeAllowed whether the connection negotiated {@code transfer.resume}: the staging file is
     *                      then kept, with a sidecar, when the connection ends (downloads and uploads alike)
     */
    synchronized void onInit(TransferInit init, boolean trailerAllowed, boolean zstdAllowed, boolean resumeAllowed) {
        if (!ReceiverState.TABLE.allows(state, ReceiverState.RECEIVING)) {
            throw new org.vancetope.worktarget.core.transfer.IllegalTransitionException(state, ReceiverState.RECEIVING);
        }
        touch();
        this.hash = init.hash();
        this.totalSize = init.totalSize();
        this.target = init.target();
        this.dirName = init.dirName();
        this.resumable = resumeAllowed;
        if (root != null) {
            // a transfer_init answering a resume request starts the upload over: what was kept goes
            KeptTransfers.delete(root, id);
            root = null;
        }
        received = 0;
        expectedSeq = 0;
        offsetDue = false;
        mode = null;
        mtime = null;
        ToolException refusal = init.hash() == null && !trailerAllowed
                ? new ToolException(ErrorCode.INVALID_PARAMS, "transfer_init needs the hash: \"sha256:\" followed by 64 "
                + "hex digits (a transfer without it needs the capability transfer.hash-trailer, which this connection "
                + "did not negotiate)")
                : compressionRefusal(init.compression(), zstdAllowed);
        if (refusal == null) {
            refusal = validate(init);
        }
        if (refusal != null) {
            deleteStaging();
            outcome = new TransferResult(id, false, 0, hash, refusal.getMessage(), refusal.code());
            move(ReceiverState.FAILED);
            channel.send(new TransferInitResponse(id, false, refusal.getMessage(), refusal.code()));
            decided();
        } else {
            zstd = init.compression() != null;
            move(ReceiverState.RECEIVING);
            channel.send(new TransferInitResponse(id, true, null));
            engine.notifyProgress(id, TransferListener.Role.RECEIVER, 0, totalSize);
        }
        armTimer();
    }

    /** Why the init's compression cannot be received, or null (none, or zstd on a connection that negotiated it). */
    private ToolException compressionRefusal(String compression, boolean zstdAllowed) {
        if (compression == null) {
            return null;
        }
        if (!TransferInit.ZSTD.equals(compression)) {
            return new ToolException(ErrorCode.INVALID_PARAMS, "transfer_init announces the compression '" + compression
                    + "', and the only one defined is \"" + TransferInit.ZSTD + "\"; send the file without compression");
        }
        if (!zstdAllowed || !ChunkCompression.available()) {
            return new ToolException(ErrorCode.ZSTD_REFUSED, "transfer_init announces zstd compression, which needs the "
                    + "capability transfer.zstd, and this connection did not negotiate it; send the file without "
                    + "compression");
        }
        return null;
    }

    /** Checks the init and opens the staging file; returns a refusal (its code and message) or null. */
    private ToolException validate(TransferInit init) {
        if (request != null && (!request.dirName().equals(init.dirName()) || !request.remotePath().equals(init.target()))) {
            return new ToolException(ErrorCode.INVALID_PARAMS,
                    "transfer_init does not match the upload request (dirName and target must be the requested ones)");
        }
        if (init.hash() != null && !Sha256.isWellFormed(init.hash())) {
            return new ToolException(ErrorCode.INVALID_PARAMS, "hash must be \"sha256:\" followed by 64 hex digits");
        }
        long limit = engine.side.receiveLimit(engine.settings);
        if (init.totalSize() > limit) {
            return new ToolException(ErrorCode.SIZE_LIMIT,
                    TransferEngine.sizeLimitError(init.totalSize(), limit, engine.side.receiveLimitName()));
        }
        if (init.attrs() != null) {
            try {
                Optional<Integer> bits = init.attrs().modeBits();
                mode = bits.map(b -> b & engine.side.modeMask(engine.settings)).orElse(null);
                mtime = init.attrs().mtimeInstant().orElse(null);
            } catch (IllegalArgumentException e) {
                return new ToolException(ErrorCode.INVALID_PARAMS, "invalid attrs: " + e.getMessage());
            }
        }
        TargetResolution r = engine.resolver.rootToReceive(scope, init.dirName(), init.totalSize());
        if (!r.ok()) {
            return new ToolException(r.code(), r.error());
        }
        ConfinedRoot root;
        Path target;
        try {
            root = ConfinedRoot.of(r.root());
            target = root.resolveFileToWrite(init.target(), engine.targetParameter(), "a file transfer", "transferred");
        } catch (ToolException e) {
            return e;
        } catch (IOException e) {
            return new ToolException(ErrorCode.INTERNAL, "the receiving directory cannot be opened: "
                    + e.getClass().getSimpleName());
        }
        // Space first, on the deepest existing ancestor, so a refused transfer creates no directories.
        Path existing = target.getParent();
        while (existing != null && !Files.isDirectory(existing, LinkOption.NOFOLLOW_LINKS)) {
            existing = existing.getParent();
        }
        try {
            long usable = existing == null ? 0 : Files.getFileStore(existing).getUsableSpace();
            if (usable < init.totalSize()) {
                return new ToolException(ErrorCode.DISK_FULL, DISK_FULL + ": the receiving disk has " + usable
                        + " bytes free and the file needs " + init.totalSize() + "; free space there and retry");
            }
        } catch (IOException e) {
            return new ToolException(ErrorCode.INTERNAL, "cannot check disk space: " + e.getClass().getSimpleName());
        }
        engine.noteRoot(root);
        try {
            staging = resumable ? stageResumable(root, target) : null;
            if (staging == null) {
                staging = root.stage(target);
            }
            root.checkTarget(staging, init.target());
        } catch (ToolException e) {
            deleteStaging();
            return e;
        } catch (IOException e) {
            deleteStaging();
            return ConfinedRoot.io(e, init.target(), "write");
        }
        digest = Sha256.newDigest();
        if (resumable) {
            try {
                KeptTransfers.write(root, sidecar());
            } catch (IOException e) {
                LOG.warn("Transfer {} cannot be resumed: its sidecar cannot be written ({})", id, e.toString());
                resumable = false;
            }
        }
        return null;
    }

    /**
     * The staging file under the transfer's fixed name at the top of the root, or null when that is not
     * possible (the top is read-only): the transfer then runs without being resumable.
     */
    private StagedFile stageResumable(ConfinedRoot root, Path target) throws IOException {
        KeptTransfers.delete(root, id);     // a new init of the same id starts over
        try {
            StagedFile f = root.stageNamed(target, KeptTransfers.stagingName(id));
            this.root = root;
            this.targetPath = target;
            return f;
        } catch (java.nio.file.AccessDeniedException e) {
            LOG.info("Transfer {} is not resumable: the top of its root is not writable", id);
            resumable = false;
            return null;
        }
    }

    private KeptTransfers.Sidecar sidecar() {
        return new KeptTransfers.Sidecar(id, dirName, target, totalSize, hash, received, expectedSeq, mode,
                mtime == null ? null : mtime.toString(), state == ReceiverState.VERIFIED);
    }

    /**
     * Whether the connection's end keeps this transfer: it is resumable and receiving, or it is a kept
     * upload whose resume the Brain asked for and the answer has not come yet.
     */
    synchronized boolean keepsOnClose() {
        return resumable && (state == ReceiverState.RECEIVING || awaitsResume());
    }

    /** A kept upload the Brain asked the Foot to resume: waiting for its {@code transfer_resume}. */
    private boolean awaitsResume() {
        return state == ReceiverState.AWAITING_INIT && root != null;
    }

    /**
     * Whether this transfer waits for the {@code transfer_resume} its Brain asked for on a channel.
     *
     * @param on the channel the resume arrived on
     */
    synchronized boolean awaitsResumeOn(FrameChannel<TransferFrame> on) {
        return awaitsResume() && channel.id().equals(on.id());
    }

    /**
     * The connection ended: keeps the staging file and writes the sidecar with the offset reached, leaves
     * the pending map for the engine's kept ones, and expires after the retention time.
     */
    synchronized void park() {
        if (!keepsOnClose()) {
            return;
        }
        try {
            if (staging != null) {
                staging.detach();
                staging = null;
            }
            KeptTransfers.write(root, sidecar());
        } catch (IOException e) {
            LOG.warn("Cannot keep transfer {} for a resume: {}", id, e.toString());
            abort(ErrorCode.OFFLINE, "connection closed");
            return;
        }
        move(ReceiverState.KEPT);
        if (timer != null) {
            timer.cancel();
        }
        engine.receivers.remove(id, this);
        engine.kept.put(id, this);
        lastActivity = engine.now();
        timer = engine.scheduler.schedule(engine.settings.resumeRetention(), this::onRetentionOver);
        LOG.debug("Kept transfer {} at offset {} for a resume", id, received);
        if (request != null) {
            // the Brain's upload call learns it now: it may wait for the client and resume, or hand out the id
            result.complete(new TransferResult(id, false, received, hash, "connection closed; the server keeps what "
                    + "arrived: resume with resumeId " + id + " within its resumeRetention", ErrorCode.OFFLINE, id));
        }
    }

    /**
     * The Brain asks the Foot, on a new connection, to resume this kept upload: the transfer goes back to
     * the pending map, waiting for the Foot's {@code transfer_resume} (the init timeout applies), and the
     * returned future gets its outcome.
     *
     * @param on the new connection
     * @param resumeRequest the request sent to the Foot ({@code resume} set)
     * @return the outcome, or null when the request does not name this upload's file (nothing changed)
     */
    /** The tenant and project the transfer was started for. */
    TransferScope scope() {
        return scope;
    }

    synchronized CompletableFuture<TransferResult> requestResume(FrameChannel<TransferFrame> on,
                                                                 UploadRequest resumeRequest) {
        if (state != ReceiverState.KEPT) {     // its retention ended, or another call took it up, just now
            return CompletableFuture.completedFuture(TransferResult.failed(id, ErrorCode.NOT_FOUND, "nothing is kept "
                    + "of transfer " + id + " any more (it expired or was taken up meanwhile); upload the file again"));
        }
        if (!target.equals(resumeRequest.remotePath()) || !java.util.Objects.equals(dirName, resumeRequest.dirName())) {
            return null;
        }
        // the rest of the file takes room from the project now: what was kept counts on the disk already
        TargetResolution room = engine.resolver.rootToReceive(scope, dirName, totalSize - received);
        if (!room.ok()) {
            return CompletableFuture.completedFuture(TransferResult.failed(id, room.code(), room.error()
                    + " What arrived stays kept for resumeId " + id + " within its resumeRetention."));
        }
        if (engine.receivers.putIfAbsent(id, this) != null) {
            return CompletableFuture.completedFuture(TransferResult.failed(id, ErrorCode.INVALID_PARAMS,
                    "a transfer with this id is running; upload the file again without resumeId"));
        }
        engine.kept.remove(id, this);
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
        request = resumeRequest;
        channel = on;
        outcome = null;
        result = new CompletableFuture<>();
        move(ReceiverState.AWAITING_INIT);
        touch();
        armTimer();
        return result;
    }

    private synchronized void onRetentionOver() {
        if (state == ReceiverState.KEPT) {
            discardKept(ErrorCode.TIMEOUT, "resume retention over");
        }
    }

    /** The endpoint closes: a kept transfer leaves memory, its files stay for a later process (within retention). */
    synchronized void forget() {
        if (state != ReceiverState.KEPT) {
            return;
        }
        outcome = new TransferResult(id, false, received, hash, "transfer endpoint closed", ErrorCode.OFFLINE);
        move(ReceiverState.CLOSED);
        engine.kept.remove(id, this);
        close();
    }

    /** Ends a kept transfer: its files deleted, gone from the kept map. */
    synchronized void discardKept(ErrorCode code, String reason) {
        if (state != ReceiverState.KEPT) {
            return;
        }
        KeptTransfers.delete(root, id);
        outcome = new TransferResult(id, false, received, hash, reason, code);
        move(ReceiverState.CLOSED);
        engine.kept.remove(id, this);
        close();
    }

    /**
     * A kept transfer rebuilt from its staging file and sidecar after the receiving process restarted: the
     * kept prefix (as long as the staging file, at most the announced size) is re-hashed.
     *
     * @param request on the Brain, the request of the upload's resume; null for a download
     * @return the transfer in {@link ReceiverState#KEPT}, or a refusal
     */
    static Object rebuild(TransferEngine engine, TransferScope scope, ConfinedRoot root, KeptTransfers.Sidecar s,
                          UploadRequest request) {
        long size = KeptTransfers.stagedSize(root, s.id());
        if (size < 0 || size > s.totalSize()) {
            KeptTransfers.delete(root, s.id());
            return "the kept staging file of this transfer is gone or longer than the file; send the file again";
        }
        Path target;
        try {
            target = root.resolve(s.target());
        } catch (ToolException e) {
            KeptTransfers.delete(root, s.id());
            return e.getMessage();
        }
        MessageDigest digest;
        try {
            digest = KeptTransfers.rehash(root, s.id(), size);
        } catch (IOException e) {
            KeptTransfers.delete(root, s.id());
            return "the kept staging file cannot be read (" + e.getClass().getSimpleName() + "); send the file again";
        }
        IncomingTransfer r = new IncomingTransfer(engine, null, scope, s.id(), request, ReceiverState.KEPT);
        r.resumable = true;
        r.root = root;
        r.targetPath = target;
        r.target = s.target();
        r.dirName = s.dirName();
        r.totalSize = s.totalSize();
        r.hash = s.hash();
        r.mode = s.mode();
        r.mtime = s.mtime() == null ? null : Instant.parse(s.mtime());
        r.digest = digest;
        r.received = size;
        // after a crash the staging file may hold more than the sidecar says: the seq goes on from there
        r.expectedSeq = size == s.offset() ? s.nextSeq() : s.nextSeq() + 1;
        LOG.info("Rebuilt kept transfer {} from its staging file: {} of {} bytes", s.id(), size, s.totalSize());
        return r;
    }

    /**
     * {@code transfer_resume} on a new connection: checks that it names the kept file, opens the staging
     * file again and answers with the offset and next seq; a mismatch discards what was kept.
     *
     * @param zstdAllowed whether the new connection negotiated {@code transfer.zstd}: a resumed transfer's
     *                    chunks may be compressed exactly when the connection it resumes on negotiated it
     *                    (its sender decides by the same negotiation), whatever its first connection did
     * @return whether the transfer goes on
     */
    synchronized boolean resume(FrameChannel<TransferFrame> on, org.vancetope.worktarget.core.transfer.TransferResume f,
                                boolean zstdAllowed) {
        boolean requested = awaitsResume();
        if (state != ReceiverState.KEPT && !requested) {
            throw new org.vancetope.worktarget.core.transfer.IllegalTransitionException(state, ReceiverState.RECEIVING);
        }
        String refusal = null;
        ErrorCode code = ErrorCode.INVALID_PARAMS;
        if (!target.equals(f.target()) || !java.util.Objects.equals(dirName, f.dirName())) {
            refusal = "transfer_resume names another file than the kept transfer (target and dirName must be those of "
                    + "its transfer_init); send the file again";
        } else if (totalSize != f.totalSize()) {
            code = ErrorCode.SOURCE_CHANGED;
            refusal = "the source changed since the transfer started (it has " + f.totalSize() + " bytes, not "
                    + totalSize + "); send the file again, without resumeId";
        } else if (hash != null && f.hash() != null && !hash.equalsIgnoreCase(f.hash())) {
            code = ErrorCode.SOURCE_CHANGED;
            refusal = "the source changed since the transfer started (its hash differs); send the file again, without "
                    + "resumeId";
        }
        if (refusal == null && !requested) {
            // the rest of the file takes room from the project now (a requested resume took it when asked)
            TargetResolution room = engine.resolver.rootToReceive(scope, dirName, totalSize - received);
            if (!room.ok()) {
                on.send(new org.vancetope.worktarget.core.transfer.TransferResumeResponse(id, false, 0, 0, room.error()
                        + " What arrived stays kept: resume again within the resume retention.", room.code()));
                return false;
            }
        }
        if (refusal == null) {
            try {
                staging = root.reopenStaged(targetPath, KeptTransfers.stagingName(id), received);
            } catch (IOException e) {
                code = ErrorCode.INTERNAL;
                refusal = "the kept staging file cannot be opened again (" + e.getClass().getSimpleName()
                        + "); send the file again";
            }
        }
        if (refusal != null) {
            on.send(new org.vancetope.worktarget.core.transfer.TransferResumeResponse(id, false, 0, 0, refusal, code));
            if (requested) {
                // the requested upload fails; the Foot's sender answers with transfer_finish
                KeptTransfers.delete(root, id);
                outcome = new TransferResult(id, false, received, hash, refusal, code);
                move(ReceiverState.FAILED);
                decided();
            } else {
                discardKept(code, refusal);
            }
            return false;
        }
        engine.kept.remove(id, this);
        if (!requested && engine.receivers.putIfAbsent(id, this) != null) {
            try {
                staging.detach();       // the running transfer of this id owns the kept files
            } catch (IOException e) {
                LOG.debug("Closing the reopened staging file of {} failed", id, e);
            }
            staging = null;
            on.send(new org.vancetope.worktarget.core.transfer.TransferResumeResponse(id, false, 0, 0,
                    "a transfer with this id is running; send the file again under a new id", ErrorCode.INVALID_PARAMS));
            return false;
        }
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
        channel = on;
        zstd = zstdAllowed && ChunkCompression.available();
        move(ReceiverState.RECEIVING);
        offsetDue = true;
        touch();
        armTimer();
        on.send(new org.vancetope.worktarget.core.transfer.TransferResumeResponse(id, true, received, expectedSeq, null));
        engine.notifyProgress(id, TransferListener.Role.RECEIVER, received, totalSize);
        return true;
    }

    // ---------------------------------------------------------------- chunks

    synchronized void onChunk(TransferChunk c) {
        if (state != ReceiverState.RECEIVING) {
            throw new org.vancetope.worktarget.core.transfer.IllegalTransitionException(state, ReceiverState.RECEIVING);
        }
        touch();
        byte[] bytes = c.bytes();
        if (c.offset() != TransferChunk.NO_OFFSET && c.offset() != received) {
            fail(ErrorCode.BAD_FRAME, "chunk offset " + c.offset() + " is not the receiver's offset " + received
                    + "; ask again with transfer_resume", null);
            return;
        }
        if (offsetDue && c.offset() == TransferChunk.NO_OFFSET) {
            fail(ErrorCode.BAD_FRAME, "the first chunk after transfer_resume must name its offset (" + received + ")",
                    null);
            return;
        }
        if (c.seq() != expectedSeq) {
            fail(ErrorCode.BAD_FRAME, "chunk out of order: expected seq " + expectedSeq + ", got " + c.seq()
                    + "; send the file again", null);
            return;
        }
        if (c.compressed()) {
            bytes = decompress(c);
            if (bytes == null) {
                return;
            }
        }
        if (bytes.length > engine.settings.chunkSize()) {
            fail(ErrorCode.SIZE_LIMIT, "chunk of " + bytes.length + " bytes exceeds the chunk size "
                    + engine.settings.chunkSize() + "; send chunks of at most that many bytes (the server announces it "
                    + "as welcome.limits.maxChunkBytes)", null);
            return;
        }
        if (received + bytes.length > totalSize) {
            fail(ErrorCode.SIZE_LIMIT, "more bytes than the announced totalSize " + totalSize
                    + "; send the file again once it no longer changes", null);
            return;
        }
        if (c.last() && received + bytes.length != totalSize) {
            fail(ErrorCode.BAD_FRAME, "last chunk arrived after " + (received + bytes.length) + " of " + totalSize
                    + " bytes; send the file again", null);
            return;
        }
        if (c.hash() != null) {
            // the hash trailer: the last chunk names the hash the init left out (or, if the init had one, the same)
            if (!Sha256.isWellFormed(c.hash())) {
                fail(ErrorCode.BAD_FRAME, "the last chunk's hash must be \"sha256:\" followed by 64 hex digits", null);
                return;
            }
            if (hash != null && !hash.equalsIgnoreCase(c.hash())) {
                fail(ErrorCode.HASH_MISMATCH, "the last chunk's hash differs from the one transfer_init announced",
                        TransferComplete.HASH_MISMATCH);
                return;
            }
            hash = c.hash();
        } else if (c.last() && hash == null) {
            fail(ErrorCode.BAD_FRAME, "the last chunk carries no hash, and transfer_init announced none; the file "
                    + "cannot be verified", null);
            return;
        }
        try {
            staging.write(bytes);
        } catch (IOException e) {
            fail(writeFailure(e, received), null);
            return;
        }
        digest.update(bytes);
        received += bytes.length;
        expectedSeq++;
        offsetDue = false;
        engine.notifyProgress(id, TransferListener.Role.RECEIVER, received, totalSize);
        if (c.last()) {
            verify();
        }
    }

    /**
     * A compressed chunk's data, or null after failing the transfer: the chunk must belong to a transfer
     * announced with zstd, declare at most the chunk size (checked before any allocation), and
     * decompress to exactly what it declares (bounded by that size, so a bomb stops there).
     */
    private byte[] decompress(TransferChunk c) {
        int limit = engine.settings.chunkSize();
        if (!zstd) {
            fail(ErrorCode.ZSTD_REFUSED, ZSTD_REFUSED + ": chunk " + c.seq() + " is zstd-compressed, and transfer_init announced no "
                    + "compression", null);
            return null;
        }
        if (c.rawSize() > limit) {
            fail(ErrorCode.ZSTD_REFUSED, ZSTD_REFUSED + ": chunk " + c.seq() + " declares " + c.rawSize() + " decompressed bytes, above the "
                    + "chunk size " + limit, null);
            return null;
        }
        if (c.bytes().length > limit) {
            fail(ErrorCode.ZSTD_REFUSED, ZSTD_REFUSED + ": chunk " + c.seq() + " carries " + c.bytes().length + " compressed bytes, above the "
                    + "chunk size " + limit, null);
            return null;
        }
        try {
            return ChunkCompression.decompress(c.bytes(), c.rawSize());
        } catch (IllegalArgumentException | IllegalStateException e) {
            fail(ErrorCode.ZSTD_REFUSED, ZSTD_REFUSED + ": chunk " + c.seq() + " cannot be decompressed: "
                    + e.getMessage(), null);
            return null;
        }
    }

    /**
     * The {@code transfer_init} or {@code transfer_resume} this requested upload waits for could not be
     * decoded: the upload fails now (as at its init timeout, without the wait), and the sender is told.
     *
     * @param type the frame's type
     * @param problem why it could not be decoded
     */
    synchronized void onUndecodableStart(String type, String problem) {
        if (state != ReceiverState.AWAITING_INIT) {
            throw new org.vancetope.worktarget.core.transfer.IllegalTransitionException(state, ReceiverState.CLOSED);
        }
        String error = "the client's " + type + " could not be decoded (" + problem + "); upload the file again";
        if (awaitsResume()) {
            KeptTransfers.delete(root, id);
        }
        outcome = new TransferResult(id, false, received, hash, error, ErrorCode.BAD_FRAME);
        move(ReceiverState.CLOSED);
        channel.send(new TransferInitResponse(id, false, error, ErrorCode.BAD_FRAME));
        close();
    }

    /** A chunk of this transfer could not be decoded: its bytes are lost, so the transfer fails now. */
    synchronized void onUndecodableChunk(String problem) {
        if (state != ReceiverState.RECEIVING) {
            throw new org.vancetope.worktarget.core.transfer.IllegalTransitionException(state, ReceiverState.FAILED);
        }
        touch();
        fail(ErrorCode.BAD_FRAME, "chunk " + expectedSeq + " could not be decoded (" + problem + "); send the file again",
                null);
    }

    private void verify() {
        try {
            staging.finishWriting(engine.settings.syncBeforeCommit());
        } catch (IOException e) {
            fail(writeFailure(e, received), null);
            return;
        }
        String actual = Sha256.format(digest.digest());
        if (!actual.equalsIgnoreCase(hash)) {
            fail(ErrorCode.HASH_MISMATCH, "hash mismatch", TransferComplete.HASH_MISMATCH);
            return;
        }
        hash = actual;
        try {
            staging.commit(mode == null ? null : TransferEngine.Modes.fromBits(mode),
                    mtime == null ? null : FileTime.from(mtime));
            staging.close();
        } catch (IOException e) {
            fail(ConfinedRoot.isDiskFull(e) ? writeFailure(e, received)
                    : e instanceof NoSuchFileException ? new ToolException(ErrorCode.NOT_FOUND, "the target's directory "
                            + "was deleted while the file was being received (by a job, or with its RootDir); nothing was "
                            + "written: send the file again once the directory exists")
                    : new ToolException(ErrorCode.INTERNAL, "cannot move the verified file onto the target: "
                            + e.getClass().getSimpleName()), TransferComplete.HASH_OK);
            return;
        }
        staging = null;
        outcome = new TransferResult(id, true, received, hash, null, null);
        move(ReceiverState.VERIFIED);
        if (resumable) {
            // until transfer_finish, the sidecar says the file landed: a sender that did not hear it learns it
            // from a resume, also from a restarted receiver
            try {
                KeptTransfers.write(root, sidecar());
            } catch (IOException e) {
                KeptTransfers.delete(root, id);
            }
        }
        channel.send(new TransferComplete(id, true, null, received, TransferComplete.HASH_OK));
    }

    /** Mid-stream failure: delete staging, tell the sender (code and message) with an early transfer_complete. */
    private void fail(ErrorCode code, String error, String hashCheck) {
        deleteStaging();
        outcome = new TransferResult(id, false, received, hash, error, code);
        move(ReceiverState.FAILED);
        channel.send(new TransferComplete(id, false, error, received, hashCheck, code));
        decided();
    }

    /**
     * The caller cancelled the upload's future (its tool call was cancelled): a file on its way ends now, its
     * staging file is deleted and the sender told; a requested upload that did not start yet is given up (its
     * late init is then refused). Nothing happens once the file is verified or the transfer ended.
     */
    synchronized void cancelledByCaller() {
        if (state == ReceiverState.RECEIVING) {
            fail(ErrorCode.CANCELLED, "the upload was cancelled by its caller; nothing was written", null);
        } else if (state == ReceiverState.AWAITING_INIT || state == ReceiverState.NEW) {
            outcome = new TransferResult(id, false, received, hash, "the upload was cancelled by its caller",
                    ErrorCode.CANCELLED);
            move(ReceiverState.CLOSED);
            engine.receivers.remove(id, this);
            close();
        }
    }

    private void fail(ToolException failure, String hashCheck) {
        fail(failure.code(), failure.getMessage(), hashCheck);
    }

    /**
     * The receiver has decided the transfer failed: whoever waits for it (the Brain's upload call) gets
     * the outcome now. The transfer itself stays until {@code transfer_finish} or its timeout.
     */
    private void decided() {
        result.complete(outcome);
    }

    /** What a failed write of the staging file tells the sender: a full disk says so, anything else what failed. */
    private ToolException writeFailure(IOException e, long written) {
        if (ConfinedRoot.isDiskFull(e)) {
            return new ToolException(ErrorCode.DISK_FULL, DISK_FULL + ": the receiving disk is full after " + written
                    + " of " + totalSize + " bytes; free space there and retry");
        }
        return new ToolException(ErrorCode.INTERNAL, "write failed: " + e.getClass().getSimpleName());
    }

    // ---------------------------------------------------------------- end

    synchronized void onFinish(TransferFinish f) {
        if (resumable && root != null) {
            KeptTransfers.delete(root, id);     // the sender knows the outcome: nothing to resume
        }
        boolean started = state != ReceiverState.NEW && state != ReceiverState.AWAITING_INIT;
        move(ReceiverState.CLOSED);
        if (outcome == null) {
            // the sender's own failure comes with its code; a peer that names none is internal
            outcome = f.error() != null
                    ? new TransferResult(id, false, received, hash, f.error(), f.code() == null ? ErrorCode.INTERNAL : f.code())
                    : new TransferResult(id, false, received, hash, !started
                    ? (request != null ? "the client did not start the upload" : "the sender did not start the transfer")
                    : "the sender aborted the transfer after " + received + " of " + totalSize + " bytes; nothing was "
                    + "kept", ErrorCode.CANCELLED);
        }
        deleteStaging();
        close();
    }

    private void onTimer() {
        synchronized (this) {
            if (state == ReceiverState.CLOSED) {
                return;
            }
            long now = engine.now();
            if (now < deadline) {
                armTimer();
                return;
            }
            switch (state) {
                case AWAITING_INIT, NEW -> {
                    boolean resumeAsked = awaitsResume();
                    outcome = new TransferResult(id, false, received, hash, resumeAsked
                            ? "init timeout: the client did not answer the resume request" : "init timeout",
                            ErrorCode.TIMEOUT);
                    move(ReceiverState.CLOSED);
                    if (resumeAsked) {
                        KeptTransfers.delete(root, id);
                    }
                    close();
                }
                case RECEIVING -> {
                    fail(ErrorCode.TIMEOUT, "chunk timeout", null);
                    touch();
                    armTimer();
                }
                default -> {
                    // VERIFIED or FAILED: the sender already has its status; clean up without transfer_finish.
                    if (resumable && root != null) {
                        KeptTransfers.delete(root, id);
                    }
                    move(ReceiverState.CLOSED);
                    close();
                }
            }
        }
    }

    /** Ends the transfer at once (channel closed, endpoint closed): no frames, staging deleted. */
    synchronized void abort(ErrorCode code, String reason) {
        if (state == ReceiverState.CLOSED) {
            return;
        }
        if (outcome == null || state == ReceiverState.RECEIVING) {
            outcome = new TransferResult(id, false, received, hash, reason, code);
        }
        if (request != null && state == ReceiverState.VERIFIED && resumable && root != null) {
            KeptTransfers.delete(root, id);     // the upload call gets the verified outcome now: nothing to resume
        }
        deleteStaging();
        move(ReceiverState.CLOSED);
        close();
    }

    /** The sweep found no activity: tell a sender still streaming, then end. */
    synchronized void expire(String reason) {
        if (state == ReceiverState.RECEIVING && channel.isOpen()) {
            fail(ErrorCode.TIMEOUT, reason, null);
        }
        abort(ErrorCode.TIMEOUT, reason);
    }

    private void deleteStaging() {
        if (staging != null) {
            try {
                staging.close();
            } catch (IOException e) {
                LOG.warn("Cannot delete staging file of transfer {}: {}", id, e.toString());
            }
            staging = null;
        }
        if (resumable && root != null && state != ReceiverState.VERIFIED) {
            KeptTransfers.delete(root, id);
        }
    }



    private void close() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
        engine.receivers.remove(id, this);
        TransferResult r = outcome != null ? outcome : TransferResult.failed(id, ErrorCode.INTERNAL, "transfer ended");
        result.complete(r);
        engine.notifyFinished(TransferListener.Role.RECEIVER, r);
    }
}
