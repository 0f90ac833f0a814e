package org.vancetope.worktarget.core.internal.transfer;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.core.internal.LogLimiter;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.transfer.DirectoryManifest;
import org.vancetope.worktarget.core.transfer.DirectoryManifestResponse;
import org.vancetope.worktarget.core.transfer.DirectoryUploadRequest;
import org.vancetope.worktarget.core.transfer.IllegalTransitionException;
import org.vancetope.worktarget.core.transfer.PeerLimits;
import org.vancetope.worktarget.core.transfer.TargetResolution;
import org.vancetope.worktarget.core.transfer.TargetResolver;
import org.vancetope.worktarget.core.transfer.TransferAttrs;
import org.vancetope.worktarget.core.transfer.TransferCapability;
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
import org.vancetope.worktarget.core.transfer.TransferScope;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.core.transfer.TransferSide;
import org.vancetope.worktarget.core.transfer.UploadRequest;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.FrameChannel;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The shared state of one endpoint: the pending maps of senders and receivers, time, and routing of
 * inbound frames to the transfer they belong to. One instance serves all channels of a side.
 */
public final class TransferEngine {
    private static final Logger LOG = LoggerFactory.getLogger(TransferEngine.class);
    /** Lines a peer causes with frames it should not send: one WARN per 10 s, the others at DEBUG. */
    static final LogLimiter PEER_NOISE = new LogLimiter(java.util.concurrent.TimeUnit.SECONDS.toNanos(10),
            System::nanoTime);
    private static final int MAX_SWEPT_ROOTS = 256;

    final TransferSide side;
    final TransferSettings settings;
    final TargetResolver resolver;
    final Clock clock;
    final TransferScheduler scheduler;
    final Executor executor;
    private final TransferListener listener;
    private final Supplier<String> ids;
    final Map<String, OutgoingTransfer> senders = new ConcurrentHashMap<>();
    final Map<String, IncomingTransfer> receivers = new ConcurrentHashMap<>();
    /** What the peer of each attached channel (by id) announced it accepts; absent: nothing. */
    private final Map<String, PeerLimits> peerLimits = new ConcurrentHashMap<>();
    /** Receivers whose connection ended, kept for a resume ({@code transfer.resume}); not pending. */
    final Map<String, IncomingTransfer> kept = new ConcurrentHashMap<>();
    /**
     * The {@code transfer_finish} frames of transfers this side sent that their receiver may not have got,
     * because the connection was lost (a directory transfer given up, or one of its files that landed as its
     * connection ended): sent on the peer's next connection of the scope, within the retention, so that the
     * peer deletes what it kept of them.
     */
    private final Map<String, OwedFinish> owed = new ConcurrentHashMap<>();
    private volatile CompletableFuture<Void> nextAttach = new CompletableFuture<>();

    /** The roots received into, most recent last, for the sweep of stale staging files (bounded). */
    private final Map<Path, Boolean> roots = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Path, Boolean> eldest) {
            return size() > MAX_SWEPT_ROOTS;
        }
    };
    private final DirectoryTransfers directories = new DirectoryTransfers(this);
    private volatile TransferScheduler.Cancellable sweep;
    private volatile boolean closed;

    /**
     * Creates an engine and starts its cleanup sweep.
     *
     * @param side which end this is
     * @param settings limits and timeouts
     * @param resolver target resolution
     * @param clock time
     * @param scheduler timers
     * @param executor runs file reads of senders
     * @param listener progress
     * @param ids new transfer ids
     */
    public TransferEngine(TransferSide side, TransferSettings settings, TargetResolver resolver, Clock clock,
                          TransferScheduler scheduler, Executor executor, TransferListener listener, Supplier<String> ids) {
        this.side = Objects.requireNonNull(side, "side");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.resolver = Objects.requireNonNull(resolver, "resolver");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.executor = Objects.requireNonNull(executor, "executor");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.ids = Objects.requireNonNull(ids, "ids");
        scheduleSweep();
    }

    long now() {
        return clock.millis();
    }

    // ---------------------------------------------------------------- inbound

    /**
     * Routes one inbound frame. Never throws.
     *
     * @param channel the channel it arrived on
     * @param scope the channel's tenant and project
     * @param frame the frame
     */
    public void onFrame(FrameChannel<TransferFrame> channel, TransferScope scope, Set<TransferCapability> capabilities,
                        TransferFrame frame) {
        if (frame == null) {
            LOG.warn("Dropped a null frame on channel {}", channel.id());
            return;
        }
        try {
            if (frame instanceof TransferChunk c) {
                IncomingTransfer r = receiver(channel, c);
                if (r != null) {
                    r.onChunk(c);
                }
            } else if (frame instanceof TransferInit i) {
                onInit(channel, scope, capabilities, i);
            } else if (frame instanceof TransferFinish f) {
                if (dropKept(channel, scope, capabilities, f)) {
                    return;
                }
                IncomingTransfer r = receiver(channel, f);
                if (r != null) {
                    r.onFinish(f);
                }
            } else if (frame instanceof TransferInitResponse resp) {
                OutgoingTransfer s = sender(channel, resp);
                if (s != null) {
                    s.onInitResponse(resp);
                }
            } else if (frame instanceof TransferComplete c) {
                OutgoingTransfer s = sender(channel, c);
                if (s != null) {
                    s.onComplete(c);
                }
            } else if (frame instanceof UploadRequest u) {
                onUploadRequest(channel, scope, capabilities, u);
            } else if (frame instanceof TransferResume r) {
                onResume(channel, scope, capabilities, r);
            } else if (frame instanceof TransferResumeResponse resp) {
                OutgoingTransfer s = sender(channel, resp);
                if (s != null) {
                    s.onResumeResponse(resp);
                }
            } else if (frame instanceof DirectoryManifest m) {
                directories.onManifest(channel, scope, capabilities, m);
            } else if (frame instanceof DirectoryManifestResponse r) {
                directories.onManifestResponse(channel, r);
            } else if (frame instanceof DirectoryUploadRequest d) {
                directories.onUploadRequest(channel, scope, capabilities, d);
            }
        } catch (IllegalTransitionException e) {
            LOG.debug("Dropped {} for transfer {}: not expected in state {}", frame.type(), frame.transferId(), e.from());
        } catch (RuntimeException e) {
            LOG.error("Transfer {} failed on {}; aborting it", frame.transferId(), frame.type(), e);
            abortById(frame.transferId(), channel, "internal error: " + e.getClass().getSimpleName());
        }
    }

    /**
     * A transfer frame naming a transfer could not be decoded: what waits for it on this channel fails at
     * once instead of at its timeout. A chunk fails its receiver; a {@code transfer_init} or
     * {@code transfer_resume} fails the upload that asked for it, or (a client, which receives downloads
     * unasked) is refused to its sender; a {@code transfer_dir_manifest} fails the directory upload that
     * asked for it. Other types change nothing. Never throws.
     *
     * @param channel the channel it arrived on
     * @param transferId the id the frame named
     * @param type the frame's type
     * @param problem why it could not be decoded
     */
    public void onUndecodable(FrameChannel<TransferFrame> channel, String transferId, String type, String problem) {
        try {
            switch (type) {
                case TransferChunk.TYPE -> {
                    IncomingTransfer r = receiver(channel, transferId, TransferChunk.TYPE);
                    if (r != null) {
                        r.onUndecodableChunk(problem);
                    }
                }
                case TransferInit.TYPE, TransferResume.TYPE -> {
                    IncomingTransfer r = receivers.get(transferId);
                    if (r != null && r.channel.id().equals(channel.id())) {
                        r.onUndecodableStart(type, problem);
                    } else if (r == null && side == TransferSide.FOOT && TransferInit.TYPE.equals(type)) {
                        channel.send(new TransferInitResponse(transferId, false, "the transfer_init could not be "
                                + "decoded (" + problem + "); send the file again", ErrorCode.BAD_FRAME));
                    }
                }
                case DirectoryManifest.TYPE -> directories.onUndecodableManifest(channel, transferId, problem);
                default -> {
                    // a response or finish that cannot be read: the transfer waiting for it ends at its timeout
                }
            }
        } catch (IllegalTransitionException e) {
            LOG.debug("Dropped an undecodable {} for transfer {}: not expected in state {}", type, transferId, e.from());
        } catch (RuntimeException e) {
            LOG.error("Transfer {} failed on an undecodable {}; aborting it", transferId, type, e);
            abortById(transferId, channel, "internal error: " + e.getClass().getSimpleName());
        }
    }

    private IncomingTransfer receiver(FrameChannel<TransferFrame> channel, TransferFrame f) {
        return receiver(channel, f.transferId(), f.type());
    }

    private IncomingTransfer receiver(FrameChannel<TransferFrame> channel, String transferId, String type) {
        IncomingTransfer r = transferId == null ? null : receivers.get(transferId);
        if (r == null) {
            LOG.debug("Dropped {} for unknown transfer {}", type, transferId);
            return null;
        }
        if (!r.channel.id().equals(channel.id())) {
            PEER_NOISE.warn(LOG, "Ignored {} for transfer {} from channel {}: it belongs to channel {}", type,
                    LogLimiter.printable(transferId), channel.id(), r.channel.id());
            return null;
        }
        return r;
    }

    private OutgoingTransfer sender(FrameChannel<TransferFrame> channel, TransferFrame f) {
        OutgoingTransfer s = senders.get(f.transferId());
        if (s == null) {
            LOG.debug("Dropped {} for unknown transfer {}", f.type(), f.transferId());
            return null;
        }
        if (!s.channel.id().equals(channel.id())) {
            PEER_NOISE.warn(LOG, "Ignored {} for transfer {} from channel {}: it belongs to channel {}", f.type(),
                    LogLimiter.printable(f.transferId()), channel.id(), s.channel.id());
            return null;
        }
        return s;
    }

    /** The most files a client receives at once on one connection (unrequested {@code transfer_init}s). */
    public static final int MAX_RECEIVES_PER_CONNECTION = 64;

    private void onInit(FrameChannel<TransferFrame> channel, TransferScope scope, Set<TransferCapability> capabilities,
                        TransferInit init) {
        boolean trailer = capabilities.contains(TransferCapability.HASH_TRAILER);
        boolean zstd = capabilities.contains(TransferCapability.ZSTD);
        boolean resume = capabilities.contains(TransferCapability.RESUME);
        IncomingTransfer existing = receivers.get(init.transferId());
        if (existing != null) {
            if (!existing.channel.id().equals(channel.id())) {
                PEER_NOISE.warn(LOG, "Ignored transfer_init for transfer {} from channel {}: it belongs to channel {}",
                        LogLimiter.printable(init.transferId()), channel.id(), existing.channel.id());
                return;
            }
            existing.onInit(init, trailer, zstd, resume);
            return;
        }
        IncomingTransfer old = kept.get(init.transferId());
        if (old != null) {
            old.discardKept(ErrorCode.CANCELLED, "started again with transfer_init");     // a new init of a kept id starts over
        }
        if (closed) {
            channel.send(new TransferInitResponse(init.transferId(), false, "receiver is shutting down; retry once it "
                    + "is back", ErrorCode.OFFLINE));
            return;
        }
        if (side == TransferSide.BRAIN) {
            PEER_NOISE.warn(LOG, "Refused unsolicited transfer_init {} on channel {}",
                    LogLimiter.printable(init.transferId()), channel.id());
            channel.send(new TransferInitResponse(init.transferId(), false,
                    "no upload was requested with this transferId; uploads start with client_file_upload",
                    ErrorCode.INVALID_PARAMS));
            return;
        }
        long atOnce = receivers.values().stream().filter(x -> x.channel.id().equals(channel.id())).count();
        if (atOnce >= MAX_RECEIVES_PER_CONNECTION) {
            // each holds a staging file open: a server that starts transfers without end would run this end
            // out of file descriptors (and every tool with it)
            channel.send(new TransferInitResponse(init.transferId(), false, "this client receives at most "
                    + MAX_RECEIVES_PER_CONNECTION + " files at once on one connection, and " + atOnce + " are under "
                    + "way; start this one when one of them has ended", ErrorCode.SIZE_LIMIT));
            return;
        }
        IncomingTransfer r = new IncomingTransfer(this, channel, scope, init.transferId(), null, ReceiverState.NEW);
        if (receivers.putIfAbsent(init.transferId(), r) != null) {
            LOG.debug("Dropped concurrent duplicate transfer_init {}", init.transferId());
            return;
        }
        r.onInit(init, trailer, zstd, resume);
    }

    /**
     * {@code transfer_resume}: takes up a kept transfer on this channel, from memory or, after a restart of
     * this process, from its staging file and sidecar; one verified before its connection ended (its
     * sidecar says so) is answered with its {@code transfer_complete}; anything else is refused with
     * {@code transfer_resume_response {ok:false}}.
     */
    private void onResume(FrameChannel<TransferFrame> channel, TransferScope scope, Set<TransferCapability> capabilities,
                          TransferResume f) {
        String id = f.transferId();
        if (!capabilities.contains(TransferCapability.RESUME)) {
            channel.send(new TransferResumeResponse(id, false, 0, 0,
                    "transfer_resume needs the capability transfer.resume, which this connection did not negotiate",
                    org.vancetope.worktarget.spi.ErrorCode.INVALID_PARAMS));
            return;
        }
        if (closed) {
            channel.send(new TransferResumeResponse(id, false, 0, 0, "receiver is shutting down; resume once it is "
                    + "back", org.vancetope.worktarget.spi.ErrorCode.OFFLINE));
            return;
        }
        IncomingTransfer running = settle(id);
        if (running != null) {
            if (running.awaitsResumeOn(channel)) {
                running.resume(channel, f, capabilities.contains(TransferCapability.ZSTD));    // the upload the Brain asked for
                return;
            }
            channel.send(new TransferResumeResponse(id, false, 0, 0,
                    "transfer " + id + " is still running on another connection; wait for it to end and resume again",
                    org.vancetope.worktarget.spi.ErrorCode.INVALID_PARAMS));
            return;
        }
        if (side == TransferSide.BRAIN) {
            // the Brain takes up only the uploads it asks for (client.file.upload.request with resume)
            channel.send(new TransferResumeResponse(id, false, 0, 0, "no resume of upload " + id + " was requested on "
                    + "this connection; uploads resume when the server asks (client_file_upload with resumeId)",
                    org.vancetope.worktarget.spi.ErrorCode.INVALID_PARAMS));
            return;
        }
        IncomingTransfer k = kept.get(id);
        if (k == null) {
            Object rebuilt = rebuildKept(scope, id, f.dirName(), null);
            if (rebuilt instanceof String refusal) {
                channel.send(new TransferResumeResponse(id, false, 0, 0, refusal, keptRefusalCode(refusal)));
                return;
            }
            if (rebuilt instanceof KeptTransfers.Sidecar landed) {   // verified before the restart
                channel.send(new TransferComplete(id, true, null, landed.totalSize(), TransferComplete.HASH_OK));
                return;
            }
            k = (IncomingTransfer) rebuilt;
            if (kept.putIfAbsent(id, k) != null) {
                channel.send(new TransferResumeResponse(id, false, 0, 0, "a resume of this transfer is running; wait "
                        + "for it to end", org.vancetope.worktarget.spi.ErrorCode.INVALID_PARAMS));
                return;
            }
        }
        k.resume(channel, f, capabilities.contains(TransferCapability.ZSTD));
    }

    /**
     * {@code transfer_finish} naming a download this side (the client) keeps, and no running one: its sender
     * knows the outcome (it gave the transfer up, or heard it landed), so nothing of it will be resumed and
     * what was kept is deleted, from memory or from the root of the connection (after a restart, or the
     * sidecar of a file verified before its connection ended). The server's kept uploads go only as the
     * server decides.
     *
     * @return whether the frame named a kept transfer
     */
    private boolean dropKept(FrameChannel<TransferFrame> channel, TransferScope scope,
                             Set<TransferCapability> capabilities, TransferFinish f) {
        String id = f.transferId();
        if (side != TransferSide.FOOT || !capabilities.contains(TransferCapability.RESUME) || settle(id) != null) {
            return false;
        }
        String reason = f.error() != null ? f.error() : f.ok() ? "the sender finished the transfer"
                : "the sender gave the transfer up";
        IncomingTransfer k = kept.get(id);
        if (k != null) {
            k.discardKept(ErrorCode.CANCELLED, reason);
            LOG.debug("Dropped kept transfer {} on channel {}: {}", id, channel.id(), reason);
            return true;
        }
        TargetResolution res = resolver.root(scope, null);
        if (!res.ok()) {
            return false;
        }
        try {
            ConfinedRoot root = ConfinedRoot.of(res.root());
            if (KeptTransfers.read(root, id).isEmpty()) {
                return false;
            }
            KeptTransfers.delete(root, id);
            LOG.debug("Deleted the kept files of transfer {} on channel {}: {}", id, channel.id(), reason);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Gives up a transfer this side received and keeps for a resume: its files are deleted (a directory
     * transfer whose peer did not come back).
     *
     * @param id the transfer
     * @param reason why, for its outcome
     */
    void discardKept(String id, String reason) {
        IncomingTransfer running = settle(id);
        if (running != null) {
            running.abort(ErrorCode.OFFLINE, reason);
        }
        IncomingTransfer k = kept.get(id);
        if (k != null) {
            k.discardKept(ErrorCode.CANCELLED, reason);
        }
    }

    /**
     * Owes the receiver of a transfer this side sent its {@code transfer_finish}, which a lost connection may
     * have kept from it: the next connection of the scope that negotiated {@code transfer.resume} gets it, so
     * that the peer deletes what it keeps of the transfer (a partial file given up, or the sidecar of a file
     * that landed).
     *
     * @param id the transfer
     * @param scope the tenant and project of its connection
     * @param ok whether the transfer landed (else it was given up)
     */
    void oweFinish(String id, TransferScope scope, boolean ok) {
        if (scope != null && !closed) {
            owed.put(id, new OwedFinish(scope, ok, now()));
        }
    }

    /** A {@code transfer_finish} owed to a peer of a scope, since when. */
    private record OwedFinish(TransferScope scope, boolean ok, long at) {
    }

    /** Sends the peer of a new connection the {@code transfer_finish} frames owed to its scope. */
    private void payOwedFinishes(FrameChannel<TransferFrame> channel, TransferScope scope,
                                 Set<TransferCapability> capabilities) {
        if (!capabilities.contains(TransferCapability.RESUME)) {
            return;
        }
        for (Map.Entry<String, OwedFinish> e : List.copyOf(owed.entrySet())) {
            OwedFinish f = e.getValue();
            if (f.scope().equals(scope) && owed.remove(e.getKey(), f)) {
                channel.send(f.ok() ? new TransferFinish(e.getKey(), true, null) : new TransferFinish(e.getKey(), false,
                        "the directory transfer of this file was given up: the client did not come back within "
                                + "reconnectWait", ErrorCode.CANCELLED));
            }
        }
    }

    /**
     * The receiver of a transfer id after the end of its connection, if any was pending, is handled: a
     * transfer whose connection closed without the close being handled yet is kept (or ended) now.
     *
     * @return the receiver still pending on an open connection, or null
     */
    private IncomingTransfer settle(String id) {
        IncomingTransfer running = receivers.get(id);
        if (running != null && !running.channel.isOpen()) {
            onClose(running.channel);   // its connection ended and the end is not handled yet: handle it now
        }
        return receivers.get(id);
    }

    private static String nothingKept(String id) {
        return "nothing is kept of transfer " + id + " (it expired after resumeRetention, failed, or never started "
                + "here); send the file again";
    }

    /**
     * A kept transfer from disk (the receiving process restarted), or why there is none.
     *
     * @param request on the Brain, the request of the upload's resume; null for a download
     */
    private Object rebuildKept(TransferScope scope, String id, String dirName, UploadRequest request) {
        String nothing = nothingKept(id);
        TargetResolution res = resolver.root(scope, dirName);
        if (!res.ok()) {
            return nothing;
        }
        ConfinedRoot root;
        try {
            root = ConfinedRoot.of(res.root());
        } catch (IOException e) {
            return nothing;
        }
        java.util.Optional<KeptTransfers.Sidecar> s = KeptTransfers.read(root, id);
        if (s.isEmpty()) {
            return nothing;
        }
        noteRoot(root);
        if (request != null && (!s.get().target().equals(request.remotePath())
                || !java.util.Objects.equals(s.get().dirName(), request.dirName()))) {
            return UPLOAD_MISMATCH;
        }
        if (s.get().verified()) {
            KeptTransfers.delete(root, id);
            return s.get();     // it landed: the caller answers that it is complete
        }
        return IncomingTransfer.rebuild(this, scope, root, s.get(), request);
    }

    /**
     * The code of a kept transfer that cannot be taken up: another file's is the caller's to fix; else
     * nothing is kept.
     */
    private static org.vancetope.worktarget.spi.ErrorCode keptRefusalCode(String why) {
        return why.equals(UPLOAD_MISMATCH) ? org.vancetope.worktarget.spi.ErrorCode.INVALID_PARAMS : org.vancetope.worktarget.spi.ErrorCode.NOT_FOUND;
    }

    private static final String UPLOAD_MISMATCH = "the resumeId names an upload of another file (dirName and remotePath "
            + "must be those of the interrupted call); call again with the same parameters, or without resumeId";

    private void onUploadRequest(FrameChannel<TransferFrame> channel, TransferScope scope,
                                 Set<TransferCapability> capabilities, UploadRequest u) {
        if (side != TransferSide.FOOT) {
            PEER_NOISE.warn(LOG, "Dropped client.file.upload.request {}: only a client sends files on request",
                    LogLimiter.printable(u.transferId()));
            return;
        }
        OutgoingTransfer old = senders.get(u.transferId());
        if (old != null && u.resume() && !old.channel.id().equals(channel.id())) {
            old.abort(org.vancetope.worktarget.spi.ErrorCode.OFFLINE, "connection closed");     // the Brain resumes it on this connection: the old send is over
        } else if (old != null) {
            LOG.debug("Dropped duplicate client.file.upload.request {}", u.transferId());
            return;
        }
        executor.execute(() -> {
            try {
                TargetResolution r = resolver.root(scope, null);
                if (!r.ok()) {
                    channel.send(new TransferFinish(u.transferId(), false, r.error(), r.code()));
                    notifyFinished(TransferListener.Role.SENDER, TransferResult.failed(u.transferId(), r.code(), r.error()));
                    return;
                }
                startSend(channel, capabilities, u.transferId(), r.root(), u.localPath(), u.remotePath(), u.dirName(),
                        u.attrs(), true, u.resume());
            } catch (RuntimeException e) {
                LOG.error("Upload request {} failed", u.transferId(), e);
                channel.send(new TransferFinish(u.transferId(), false, "internal error on the client",
                        ErrorCode.INTERNAL));
            }
        });
    }

    // ---------------------------------------------------------------- outbound

    /**
     * Opens a file through the confinement gate of its root, hashes it from that open channel and starts
     * sending it from the same channel: the file is never opened again by path, so what was checked is
     * what is hashed and sent. With {@link TransferCapability#HASH_TRAILER} the file is not read
     * beforehand: it is hashed while it is sent and the hash goes with the last chunk.
     *
     * @param channel the channel
     * @param capabilities the transfer capabilities of the connection
     * @param transferId the id, or null for a new one
     * @param root the root the source path is confined to
     * @param source the source path relative to the root, as the caller gave it
     * @param target the receiver-relative target
     * @param dirName the Brain RootDir, or null
     * @param attrsOverride overrides of the file's own mode and mtime, or null
     * @param requested whether a {@code client.file.upload.request} asked for it (local failures are
     *                  then answered with {@code transfer_finish {ok:false, error}})
     * @param resume whether {@code transferId} names a kept transfer to take up ({@code transfer_resume})
     * @return completes with the outcome; never exceptionally
     */
    public CompletableFuture<TransferResult> startSend(FrameChannel<TransferFrame> channel,
                                                       Set<TransferCapability> capabilities, String transferId, Path root,
                                                       String source, String target, String dirName,
                                                       TransferAttrs attrsOverride, boolean requested, boolean resume) {
        boolean trailer = capabilities.contains(TransferCapability.HASH_TRAILER);
        int zstdLevel = capabilities.contains(TransferCapability.ZSTD) && ChunkCompression.available()
                ? settings.compressionLevel() : 0;
        // downloads and requested uploads alike: the receiver keeps what arrived when the connection ends
        boolean resumable = capabilities.contains(TransferCapability.RESUME);
        String id = transferId == null ? ids.get() : transferId;
        PeerLimits peer = peerLimits.getOrDefault(channel.id(), PeerLimits.NONE);
        ToolException error = null;
        if (resume && !resumable) {
            error = new ToolException(ErrorCode.INVALID_PARAMS, transferId == null
                    ? "resume needs the id of the interrupted transfer"
                    : "this connection did not negotiate transfer.resume, so transfer " + transferId
                    + " cannot be resumed; send the file again without resumeId");
        }
        Sha256.Summary summary = null;
        TransferAttrs attrs = null;
        ConfinedRoot.OpenFile file = null;
        if (error != null) {
            // refused before anything is read
        } else if (closed) {
            error = new ToolException(ErrorCode.OFFLINE, "transfer endpoint is closed");
        } else if (!channel.isOpen()) {
            error = new ToolException(ErrorCode.OFFLINE, "connection closed");
        } else {
            try {
                file = ConfinedRoot.of(root).openFile(source);
                // the smaller of this end's limit and the one the peer announced (welcome.limits)
                long limit = Math.min(side.sendLimit(settings), peer.maxFileSize());
                String limitName = limit < side.sendLimit(settings) ? peer.maxFileSizeName() : side.sendLimitName();
                if (file.attributes().size() > limit) {
                    error = new ToolException(ErrorCode.SIZE_LIMIT, sizeLimitError(file.attributes().size(), limit, limitName));
                } else {
                    // with the hash trailer the file is read once, as it is sent
                    summary = trailer ? new Sha256.Summary(file.attributes().size(), null) : Sha256.of(file.channel());
                    file.channel().position(0);
                    if (summary.size() > limit) {
                        error = new ToolException(ErrorCode.SIZE_LIMIT, sizeLimitError(summary.size(), limit, limitName));
                    }
                    attrs = ownAttrs(file).overriddenBy(attrsOverride);
                }
            } catch (ToolException e) {
                error = e;
            } catch (IOException e) {
                error = ConfinedRoot.io(e, source, "read");
            }
        }
        if (error != null) {
            closeQuietly(file);
            if (requested) {
                channel.send(new TransferFinish(id, false, error.getMessage(), error.code()));
            }
            TransferResult failed = TransferResult.failed(id, error.code(), error.getMessage());
            notifyFinished(TransferListener.Role.SENDER, failed);
            return CompletableFuture.completedFuture(failed);
        }
        String sourceName = String.valueOf(file.path().getFileName());
        OutgoingTransfer s = new OutgoingTransfer(this, channel, id, file.channel(), sourceName, target, dirName,
                summary.size(), summary.hash(), attrs.isEmpty() ? null : attrs, trailer, zstdLevel, resumable, resume,
                Math.min(settings.chunkSize(), peer.maxChunkBytes()));
        if (senders.putIfAbsent(id, s) != null) {
            closeQuietly(file);
            TransferResult failed = TransferResult.failed(id, ErrorCode.INVALID_PARAMS, "transfer id " + id
                    + " is already in use; send the file again under a new id");
            return CompletableFuture.completedFuture(failed);
        }
        s.start();
        // cancelling the future (a cancelled tool call) ends the transfer instead of leaving it to run on
        return onCancel(s.result, s::cancelledByCaller);
    }

    /**
     * Runs {@code then} when the caller cancels the future (its tool call was cancelled), so that the work
     * behind it stops instead of running on unobserved.
     *
     * @param future the future the caller holds
     * @param then what stops the work
     * @return the same future
     */
    static <T> CompletableFuture<T> onCancel(CompletableFuture<T> future, Runnable then) {
        future.whenComplete((v, err) -> {
            if (err instanceof java.util.concurrent.CancellationException) {
                then.run();
            }
        });
        return future;
    }

    private static void closeQuietly(ConfinedRoot.OpenFile file) {
        if (file != null) {
            try {
                file.channel().close();
            } catch (IOException e) {
                LOG.debug("Closing a source file failed", e);
            }
        }
    }

    /**
     * Sends {@code client.file.upload.request} and prepares to receive the file (Brain side).
     *
     * @param channel the client's channel
     * @param scope where {@code dirName} is looked up
     * @param localPath the file on the client
     * @param dirName the RootDir
     * @param remotePath the path in the RootDir
     * @param attrs overrides, or null
     * @return completes with the outcome when {@code transfer_finish} arrives, a timeout ends it, or the
     *         receiver fails it (at once)
     */
    public CompletableFuture<TransferResult> requestUpload(FrameChannel<TransferFrame> channel, TransferScope scope,
                                                           String localPath, String dirName, String remotePath,
                                                           TransferAttrs attrs) {
        return requestUpload(channel, scope, ids.get(), localPath, dirName, remotePath, attrs);
    }

    /** {@link #requestUpload(FrameChannel, TransferScope, String, String, String, TransferAttrs)} with a given id. */
    CompletableFuture<TransferResult> requestUpload(FrameChannel<TransferFrame> channel, TransferScope scope, String id,
                                                    String localPath, String dirName, String remotePath,
                                                    TransferAttrs attrs) {
        if (closed || !channel.isOpen()) {
            return CompletableFuture.completedFuture(TransferResult.failed(id, ErrorCode.OFFLINE,
                    closed ? "transfer endpoint is closed" : "connection closed"));
        }
        UploadRequest request = new UploadRequest(id, localPath, dirName, remotePath, attrs);
        IncomingTransfer r = new IncomingTransfer(this, channel, scope, id, request, ReceiverState.AWAITING_INIT);
        receivers.put(id, r);
        r.armTimer();
        channel.send(request).whenComplete((v, err) -> {
            if (err != null) {
                r.abort(ErrorCode.OFFLINE, "connection closed");
            }
        });
        return onCancel(r.result, r::cancelledByCaller);
    }

    /**
     * Asks the client, on a new connection, to resume an upload the Brain kept after its connection was
     * lost ({@code transfer.resume}): from memory, or, after a restart of this process, from the staging
     * file and sidecar in the RootDir (the kept prefix re-hashed). An upload verified before the cut is
     * answered as complete without asking the client.
     *
     * @param channel the client's new channel
     * @param capabilities the transfer capabilities of that channel
     * @param scope where {@code dirName} is looked up
     * @param resumeId the {@link TransferResult#resumeId()} of the interrupted upload
     * @param localPath the file on the client, as first requested
     * @param dirName the RootDir, as first requested
     * @param remotePath the path in the RootDir, as first requested
     * @param attrs overrides, or null
     * @return completes with the outcome (never exceptionally)
     */
    public CompletableFuture<TransferResult> requestUploadResume(FrameChannel<TransferFrame> channel,
                                                                 Set<TransferCapability> capabilities,
                                                                 TransferScope scope, String resumeId, String localPath,
                                                                 String dirName, String remotePath, TransferAttrs attrs) {
        if (!capabilities.contains(TransferCapability.RESUME)) {
            return CompletableFuture.completedFuture(TransferResult.failed(resumeId, org.vancetope.worktarget.spi.ErrorCode
                    .INVALID_PARAMS, "this connection did not negotiate transfer.resume, so upload " + resumeId
                    + " cannot be resumed; upload the file again without resumeId"));
        }
        String refusal = null;
        org.vancetope.worktarget.spi.ErrorCode code = org.vancetope.worktarget.spi.ErrorCode.OFFLINE;
        if (closed) {
            refusal = "transfer endpoint is closed";
        } else if (!channel.isOpen()) {
            refusal = "connection closed";
        } else {
            IncomingTransfer running = settle(resumeId);
            if (running != null && !running.scope().equals(scope)) {
                // another project's upload: to this caller, nothing of it exists
                code = org.vancetope.worktarget.spi.ErrorCode.NOT_FOUND;
                refusal = nothingKept(resumeId);
            } else if (running != null) {
                code = org.vancetope.worktarget.spi.ErrorCode.INVALID_PARAMS;
                refusal = "transfer " + resumeId + " is still running (another call resumed it, on this connection or "
                        + "another); wait for it to end and resume again";
            }
        }
        if (refusal != null) {
            return CompletableFuture.completedFuture(TransferResult.failed(resumeId, code, refusal));
        }
        UploadRequest request = new UploadRequest(resumeId, localPath, dirName, remotePath, attrs, true);
        IncomingTransfer k = kept.get(resumeId);
        if (k != null && !k.scope().equals(scope)) {
            // kept for another project (whose RootDir may have the same name): never taken up from here
            return CompletableFuture.completedFuture(TransferResult.failed(resumeId,
                    org.vancetope.worktarget.spi.ErrorCode.NOT_FOUND, nothingKept(resumeId)));
        }
        if (k == null) {
            Object rebuilt = rebuildKept(scope, resumeId, dirName, request);
            if (rebuilt instanceof String why) {
                // a resumeId that names nothing (any more) or another file: the caller's to fix
                return CompletableFuture.completedFuture(TransferResult.failed(resumeId, keptRefusalCode(why), why));
            }
            if (rebuilt instanceof KeptTransfers.Sidecar landed) {   // verified before this process restarted
                TransferResult r = new TransferResult(resumeId, true, landed.totalSize(), landed.hash(), null, null);
                notifyFinished(TransferListener.Role.RECEIVER, r);
                return CompletableFuture.completedFuture(r);
            }
            k = (IncomingTransfer) rebuilt;
            if (kept.putIfAbsent(resumeId, k) != null) {
                return CompletableFuture.completedFuture(TransferResult.failed(resumeId,
                        org.vancetope.worktarget.spi.ErrorCode.INVALID_PARAMS, "a resume of this upload is running; wait "
                        + "for it to end"));
            }
        }
        CompletableFuture<TransferResult> outcome = k.requestResume(channel, request);
        if (outcome == null) {
            return CompletableFuture.completedFuture(TransferResult.failed(resumeId,
                    org.vancetope.worktarget.spi.ErrorCode.INVALID_PARAMS, UPLOAD_MISMATCH));
        }
        if (outcome.isDone()) {
            return outcome;     // refused as it stands (no room, taken up meanwhile): the client is not asked
        }
        IncomingTransfer asked = k;
        channel.send(request).whenComplete((v, err) -> {
            if (err != null) {
                asked.park();   // the new connection is gone too: kept again, the call may wait for the next one
            }
        });
        return outcome;
    }

    static String sizeLimitError(long size, long limit, String settingName) {
        return "exceeds size limit (" + size + " bytes > " + settingName + " " + limit + " bytes); the file was not moved. "
                + "Compress or split the file first (e.g. with exec_run: gzip, split), or have the limit raised "
                + "(the runnable jar's serve and daemon: --max-transfer-mib)";
    }

    private static TransferAttrs ownAttrs(ConfinedRoot.OpenFile file) {
        String mode = file.permissions() == null ? null : String.format("%04o", Modes.toBits(file.permissions()));
        Instant mtime = file.attributes().lastModifiedTime().toInstant();
        return new TransferAttrs(mode, mtime.toString());
    }

    /**
     * The directory transfers of this engine ({@link TransferCapability#DIRECTORY}).
     *
     * @return the directory transfers
     */
    public DirectoryTransfers directories() {
        return directories;
    }

    String newId() {
        return ids.get();
    }

    // ---------------------------------------------------------------- roots

    /**
     * Notes a root this engine wrote into: the first time, the leftovers of dead processes are swept
     * from it; afterwards on every cleanup sweep.
     *
     * @param root the root
     */
    void noteRoot(ConfinedRoot root) {
        boolean first;
        synchronized (roots) {
            first = roots.put(root.root(), Boolean.TRUE) == null;
        }
        if (first) {
            root.sweep();
            sweepKept(root);
        }
    }

    private void sweepRoots() {
        List<Path> known;
        synchronized (roots) {
            known = List.copyOf(roots.keySet());
        }
        for (Path p : known) {
            try {
                ConfinedRoot r = ConfinedRoot.of(p);
                r.sweep();
                sweepKept(r);
            } catch (IOException e) {
                synchronized (roots) {
                    roots.remove(p); // gone (a disposed RootDir)
                }
            }
        }
    }

    // ---------------------------------------------------------------- lifecycle

    /**
     * Aborts every transfer on a channel (it closed): receivers delete staging files, senders fail.
     *
     * @param channel the channel
     */
    public void onClose(FrameChannel<TransferFrame> channel) {
        peerLimits.remove(channel.id());
        directories.onClose(channel);
        for (IncomingTransfer r : List.copyOf(receivers.values())) {
            if (r.channel.id().equals(channel.id())) {
                if (r.keepsOnClose()) {
                    r.park();
                    continue;
                }
                r.abort(ErrorCode.OFFLINE, "connection closed");
            }
        }
        for (OutgoingTransfer s : List.copyOf(senders.values())) {
            if (s.channel.id().equals(channel.id())) {
                s.abort(ErrorCode.OFFLINE, "connection closed");
            }
        }
    }

    private void abortById(String transferId, FrameChannel<TransferFrame> channel, String reason) {
        IncomingTransfer r = receivers.get(transferId);
        if (r != null && r.channel.id().equals(channel.id())) {
            r.abort(ErrorCode.INTERNAL, reason);
        }
        OutgoingTransfer s = senders.get(transferId);
        if (s != null && s.channel.id().equals(channel.id())) {
            s.abort(ErrorCode.INTERNAL, reason);
        }
    }

    /**
     * Completes the next time a channel is attached to this engine (a peer connected, or came back).
     *
     * @return the signal
     */
    public CompletableFuture<Void> nextAttach() {
        return nextAttach;
    }

    /**
     * The tool parameter that names a received file's target on this side, for messages: the server receives
     * into {@code remotePath}, a client into {@code localPath}.
     */
    String targetParameter() {
        return side == TransferSide.BRAIN ? "remotePath" : "localPath";
    }

    /**
     * Which end this engine is.
     *
     * @return the side
     */
    public TransferSide side() {
        return side;
    }

    /**
     * A channel was attached: its peer's limits bound what is sent on it, and whoever waits for a peer to
     * come back looks again.
     *
     * @param channel the channel
     * @param scope the tenant and project of the connection
     * @param capabilities the capabilities of the connection
     * @param limits what its peer announced it accepts
     */
    public void attached(FrameChannel<TransferFrame> channel, TransferScope scope, Set<TransferCapability> capabilities,
                         PeerLimits limits) {
        if (limits.equals(PeerLimits.NONE)) {
            peerLimits.remove(channel.id());
        } else {
            peerLimits.put(channel.id(), limits);
        }
        if (!owed.isEmpty()) {
            // not from within the attach: a transport attaches before its handshake's last frame went out
            executor.execute(() -> payOwedFinishes(channel, scope, capabilities));
        }
        CompletableFuture<Void> fired = nextAttach;
        nextAttach = new CompletableFuture<>();
        fired.complete(null);
    }

    /**
     * Sweeps the kept transfers of a root whose retention is over, now, and on every later sweep (a
     * receiver at its start, so that what a dead process kept does not wait for the next transfer).
     *
     * @param root the root
     */
    public void sweepKept(Path root) {
        try {
            ConfinedRoot r = ConfinedRoot.of(root);
            synchronized (roots) {
                roots.put(r.root(), Boolean.TRUE);
            }
            sweepKept(r);
        } catch (IOException e) {
            LOG.debug("No kept transfers to sweep in {}: {}", root, e.toString());
        }
    }

    /**
     * Sweeps a root no transfer of this engine wrote into yet, e.g. each RootDir of a server at its start:
     * its kept transfers past their retention are deleted now, and a root that still keeps some is swept
     * again on every later sweep (one that keeps none is not: it costs no listing).
     *
     * @param root the root
     */
    public void sweepKeptAtStart(Path root) {
        try {
            ConfinedRoot r = ConfinedRoot.of(root);
            sweepKept(r);
            if (KeptTransfers.keepsAny(r)) {
                synchronized (roots) {
                    roots.put(r.root(), Boolean.TRUE);
                }
            }
        } catch (IOException e) {
            LOG.debug("No kept transfers to sweep in {}: {}", root, e.toString());
        }
    }

    private void sweepKept(ConfinedRoot root) {
        Set<String> live = new java.util.HashSet<>();
        receivers.keySet().forEach(id -> live.add(KeptTransfers.stem(id)));
        kept.keySet().forEach(id -> live.add(KeptTransfers.stem(id)));
        KeptTransfers.sweep(root, now(), settings.resumeRetention().toMillis(), live);
    }

    /**
     * The number of transfers kept for a resume (their connection ended; {@code transfer.resume}).
     *
     * @return the size of the kept map
     */
    public int keptReceives() {
        return kept.size();
    }

    /** Aborts everything and stops the sweep; kept transfers stay on disk for a later process, within retention. */
    public void close() {
        closed = true;
        TransferScheduler.Cancellable s = sweep;
        if (s != null) {
            s.cancel();
        }
        CompletableFuture<Void> signal = nextAttach;
        nextAttach = new CompletableFuture<>();     // never completes: nothing attaches any more
        signal.complete(null);
        directories.close();    // first: what an interrupted directory transfer kept is deleted, nothing resumes it
        owed.clear();
        for (IncomingTransfer r : List.copyOf(receivers.values())) {
            if (r.keepsOnClose()) {
                r.park();
            }
        }
        List.copyOf(kept.values()).forEach(IncomingTransfer::forget);
        List.copyOf(receivers.values()).forEach(r -> r.abort(ErrorCode.OFFLINE, "transfer endpoint closed"));
        List.copyOf(senders.values()).forEach(OutgoingTransfer::endpointClosed);
    }

    private void scheduleSweep() {
        if (!closed) {
            sweep = scheduler.schedule(settings.cleanupInterval(), this::sweepNow);
        }
    }

    /** Removes transfers without activity for a cleanup interval, then schedules the next sweep. */
    void sweepNow() {
        try {
            long cutoff = now() - settings.cleanupInterval().toMillis();
            List<IncomingTransfer> staleIn = new ArrayList<>();
            receivers.values().forEach(r -> {
                if (r.lastActivity() <= cutoff) {
                    staleIn.add(r);
                }
            });
            List<OutgoingTransfer> staleOut = new ArrayList<>();
            senders.values().forEach(s -> {
                if (s.lastActivity() <= cutoff) {
                    staleOut.add(s);
                }
            });
            String reason = "transfer expired: no activity for " + settings.cleanupInterval().toSeconds()
                    + " s (cleanupInterval)";
            staleIn.forEach(r -> r.expire(reason));
            long forgotten = now() - settings.resumeRetention().toMillis();    // the peer's own retention ended them
            owed.values().removeIf(f -> f.at() <= forgotten);
            staleOut.forEach(s -> s.abort(ErrorCode.TIMEOUT, reason));
            sweepRoots();
        } catch (RuntimeException e) {
            LOG.error("Transfer sweep failed", e);
        } finally {
            scheduleSweep();
        }
    }

    /**
     * The number of pending sending transfers.
     *
     * @return the size of the sender map
     */
    public int pendingSends() {
        return senders.size();
    }

    /**
     * The number of directory transfers waiting for their peer (its manifest, its answer, or its return).
     *
     * @return pending directory transfers
     */
    public int pendingDirectories() {
        return directories.pending();
    }

    /**
     * The number of pending receiving transfers.
     *
     * @return the size of the receiver map
     */
    public int pendingReceives() {
        return receivers.size();
    }

    // ---------------------------------------------------------------- listener

    void notifyProgress(String id, TransferListener.Role role, long done, long total) {
        try {
            listener.onProgress(id, role, done, total);
        } catch (RuntimeException e) {
            LOG.warn("Transfer listener failed on progress", e);
        }
        directories.onFileProgress(id, done);
    }

    void notifyDirectoryProgress(String id, TransferListener.Role role, int filesDone, int filesTotal, long done,
                                 long total) {
        try {
            listener.onDirectoryProgress(id, role, filesDone, filesTotal, done, total);
        } catch (RuntimeException e) {
            LOG.warn("Transfer listener failed on directory progress", e);
        }
    }

    void notifyFinished(TransferListener.Role role, TransferResult result) {
        try {
            listener.onFinished(role, result);
        } catch (RuntimeException e) {
            LOG.warn("Transfer listener failed on finish", e);
        }
    }

    Duration phaseTimeout() {
        return settings.phaseTimeout();
    }

    /**
     * How long a caller waits for the peer of a lost resumable transfer to come back.
     *
     * @return the settings' reconnect wait
     */
    public Duration reconnectWait() {
        return settings.reconnectWait();
    }

    /**
     * The root of a scope and RootDir, through the resolver.
     *
     * @param scope the scope
     * @param dirName the RootDir, or null
     * @return the resolution
     */
    public TargetResolution resolveRoot(TransferScope scope, String dirName) {
        return resolver.root(scope, dirName);
    }

    /** POSIX permission bits. */
    static final class Modes {
        private static final PosixFilePermission[] ORDER = {
            PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
            PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ};

        private Modes() {
        }

        static int toBits(Set<PosixFilePermission> perms) {
            int bits = 0;
            for (int i = 0; i < ORDER.length; i++) {
                if (perms.contains(ORDER[i])) {
                    bits |= 1 << i;
                }
            }
            return bits;
        }

        static Set<PosixFilePermission> fromBits(int bits) {
            Set<PosixFilePermission> perms = java.util.EnumSet.noneOf(PosixFilePermission.class);
            for (int i = 0; i < ORDER.length; i++) {
                if ((bits & (1 << i)) != 0) {
                    perms.add(ORDER[i]);
                }
            }
            return perms;
        }
    }
}
