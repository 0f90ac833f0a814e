package org.vancetope.worktarget.core.internal.transfer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.core.internal.LogLimiter;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.internal.path.SafeDirectory;
import org.vancetope.worktarget.core.transfer.DirectoryEntry;
import org.vancetope.worktarget.core.transfer.DirectoryEntryResult;
import org.vancetope.worktarget.core.transfer.DirectoryManifest;
import org.vancetope.worktarget.core.transfer.DirectoryManifestResponse;
import org.vancetope.worktarget.core.transfer.DirectoryTransferResult;
import org.vancetope.worktarget.core.transfer.DirectoryUploadRequest;
import org.vancetope.worktarget.core.transfer.TargetResolution;
import org.vancetope.worktarget.core.transfer.TransferCapability;
import org.vancetope.worktarget.core.transfer.TransferFrame;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferResult;
import org.vancetope.worktarget.core.transfer.TransferScheduler;
import org.vancetope.worktarget.core.transfer.TransferScope;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.FrameChannel;
import org.vancetope.worktarget.spi.ToolException;

/**
 * Directory transfer ({@link TransferCapability#DIRECTORY}) over an engine's single-file transfers. The
 * Brain runs every directory transfer: for a download it lists its tree, sends the manifest, and sends
 * each file the client accepted; for an upload it asks the client for its manifest, checks it, and asks for
 * each file it accepted. The client only lists (upload) or checks a manifest and creates its directories
 * (download); it keeps no state between the frames. Every file is an ordinary transfer of the engine
 * (staging, hash, atomic rename), one after the other.
 *
 * <p>The receiving side checks each entry: a relative path of plain names (no {@code ..}, no absolute
 * name), through the confinement gate and without a link on the way (an in-root link on the receiving
 * disk is refused too), parents listed before their children as directory entries (so a file below a
 * link entry is refused), not listed twice, a file not larger than the receive limit and, unless
 * overwrite was asked for, not already there. Links and special files are never followed on the sender
 * and never created on the receiver: they are reported as skipped.
 */
public final class DirectoryTransfers {
    private static final Logger LOG = LoggerFactory.getLogger(DirectoryTransfers.class);
    static final String NOT_NEGOTIATED = "the peer does not offer directory transfer (capability transfer.directory); "
            + "update it, or transfer the files one by one with client_file_upload or client_file_download";
    static final String LINK_SKIPPED = "a link is not transferred: links are never followed on the sender nor "
            + "created on the receiver";
    static final String SPECIAL_SKIPPED = "a special file (device, socket, pipe) is not transferred";

    private final TransferEngine engine;
    /** Directory transfers this side runs, awaiting the peer's manifest or manifest response. */
    private final Map<String, Run> runs = new ConcurrentHashMap<>();
    /** The running single-file transfers of directory transfers, by their own id (for progress). */
    private final Map<String, Run> files = new ConcurrentHashMap<>();
    /** Runs whose connection was lost while their files were sent, waiting to be resumed or given up. */
    private final Map<String, Run> interrupted = new ConcurrentHashMap<>();
    /** The outcomes of the interrupted runs {@link #close} gave up, for the calls that still wait for them. */
    private final Map<String, CompletableFuture<DirectoryTransferResult>> settledAtClose = new ConcurrentHashMap<>();
    private volatile boolean closed;

    DirectoryTransfers(TransferEngine engine) {
        this.engine = engine;
    }

    /** Whether a connection negotiated directory transfer; a refusal otherwise. */
    private static DirectoryTransferResult refuseUnlessNegotiated(Set<TransferCapability> capabilities) {
        return capabilities.contains(TransferCapability.DIRECTORY) ? null
                : DirectoryTransferResult.failed(null, ErrorCode.INVALID_PARAMS, NOT_NEGOTIATED);
    }

    // ---------------------------------------------------------------- Brain: download

    /**
     * Sends a directory of {@code root} to the peer: lists it, sends the manifest and, once the peer
     * answered, each file it accepted.
     *
     * @param channel the channel
     * @param capabilities the connection's capabilities
     * @param root the root {@code source} is confined to
     * @param source the directory relative to the root
     * @param target the directory relative to the receiver's root
     * @param overwrite whether the receiver may replace existing files
     * @return completes with the outcome, never exceptionally
     */
    public CompletableFuture<DirectoryTransferResult> send(FrameChannel<TransferFrame> channel,
                                                           Set<TransferCapability> capabilities, Path root,
                                                           String source, String target, boolean overwrite) {
        return resultOf(send(channel, capabilities, null, root, source, target, overwrite, false));
    }

    /**
     * {@link #send(FrameChannel, Set, Path, String, String, boolean)}, optionally bridging a lost connection:
     * with {@code bridged}, a connection lost while the files are sent ({@link TransferCapability#RESUME})
     * interrupts the run instead of failing its files; the caller then {@linkplain #resume resumes} it on the
     * peer's new connection or {@linkplain #giveUp gives it up}.
     *
     * @param channel the channel
     * @param capabilities the connection's capabilities
     * @param scope the connection's tenant and project (where the peer is told, when it comes back, to drop
     *              what it kept of a file given up); null when not bridged
     * @param root the root {@code source} is confined to
     * @param source the directory relative to the root
     * @param target the directory relative to the receiver's root
     * @param overwrite whether the receiver may replace existing files
     * @param bridged whether a lost connection interrupts the run (else its files fail as the connection ends)
     * @return completes with the outcome or the interruption, never exceptionally
     */
    public CompletableFuture<Outcome> send(FrameChannel<TransferFrame> channel, Set<TransferCapability> capabilities,
                                           TransferScope scope, Path root, String source, String target,
                                           boolean overwrite, boolean bridged) {
        DirectoryTransferResult refused = refuseUnlessNegotiated(capabilities);
        if (refused != null) {
            return CompletableFuture.completedFuture(Outcome.done(refused));
        }
        String id = engine.newId();
        List<DirectoryEntry> entries;
        try {
            entries = list(ConfinedRoot.of(root), source);
        } catch (ToolException e) {
            return CompletableFuture.completedFuture(Outcome.done(DirectoryTransferResult.failed(id, e.code(),
                    e.getMessage())));
        } catch (IOException e) {
            ToolException t = ConfinedRoot.io(e, source, "read");
            return CompletableFuture.completedFuture(Outcome.done(DirectoryTransferResult.failed(id, t.code(),
                    t.getMessage())));
        }
        FileSteps steps = new FileSteps(
                (e, c, caps) -> engine.startSend(c, caps, e.fileId, root, join(source, e.entry.path()),
                        join(target, e.entry.path()), null, null, false, false),
                (e, c, caps) -> engine.startSend(c, caps, e.fileId, root, join(source, e.entry.path()),
                        join(target, e.entry.path()), null, null, false, true),
                e -> engine.oweFinish(e.fileId, scope, false));
        Run run = new Run(id, channel, capabilities, TransferListener.Role.SENDER, entries, overwrite, steps, bridged);
        run.scope = scope;
        return run.start(new DirectoryManifest(id, target, null, overwrite, entries, null));
    }

    // ---------------------------------------------------------------- Brain: upload

    /**
     * Asks the peer for one of its directories and receives every file of it that this side accepts.
     *
     * @param channel the channel
     * @param capabilities the connection's capabilities
     * @param scope where {@code dirName} is looked up
     * @param localPath the directory on the peer
     * @param dirName the RootDir to write into
     * @param remotePath the directory in the RootDir
     * @param overwrite whether existing files in the RootDir may be replaced
     * @return completes with the outcome, never exceptionally
     */
    public CompletableFuture<DirectoryTransferResult> requestUpload(FrameChannel<TransferFrame> channel,
                                                                    Set<TransferCapability> capabilities,
                                                                    TransferScope scope, String localPath,
                                                                    String dirName, String remotePath,
                                                                    boolean overwrite) {
        return resultOf(requestUpload(channel, capabilities, scope, localPath, dirName, remotePath, overwrite, false));
    }

    /**
     * {@link #requestUpload(FrameChannel, Set, TransferScope, String, String, String, boolean)}, optionally
     * bridging a lost connection as {@link #send(FrameChannel, Set, TransferScope, Path, String, String, boolean,
     * boolean)} does; what this side kept of the file in flight is discarded when the run is given up.
     *
     * @param channel the channel
     * @param capabilities the connection's capabilities
     * @param scope where {@code dirName} is looked up
     * @param localPath the directory on the peer
     * @param dirName the RootDir to write into
     * @param remotePath the directory in the RootDir
     * @param overwrite whether existing files in the RootDir may be replaced
     * @param bridged whether a lost connection interrupts the run (else its files fail as the connection ends)
     * @return completes with the outcome or the interruption, never exceptionally
     */
    public CompletableFuture<Outcome> requestUpload(FrameChannel<TransferFrame> channel,
                                                    Set<TransferCapability> capabilities, TransferScope scope,
                                                    String localPath, String dirName, String remotePath,
                                                    boolean overwrite, boolean bridged) {
        DirectoryTransferResult refused = refuseUnlessNegotiated(capabilities);
        if (refused != null) {
            return CompletableFuture.completedFuture(Outcome.done(refused));
        }
        String id = engine.newId();
        FileSteps steps = new FileSteps(
                (e, c, caps) -> engine.requestUpload(c, scope, e.fileId, join(localPath, e.entry.path()), dirName,
                        join(remotePath, e.entry.path()), null),
                (e, c, caps) -> engine.requestUploadResume(c, caps, scope, e.fileId, join(localPath, e.entry.path()),
                        dirName, join(remotePath, e.entry.path()), null),
                e -> engine.discardKept(e.fileId, "the directory transfer was given up: the client did not come "
                        + "back within reconnectWait"));
        Run run = new Run(id, channel, capabilities, TransferListener.Role.RECEIVER, null, overwrite, steps, bridged);
        run.scope = scope;
        run.dirName = dirName;
        run.target = remotePath;
        return run.start(new DirectoryUploadRequest(id, localPath, dirName, remotePath, overwrite));
    }

    // ---------------------------------------------------------------- bridging a lost connection

    /**
     * Takes up an interrupted run on the peer's new connection: the file in flight is resumed from what its
     * receiver kept (sent again from its start when nothing was kept), then the remaining files follow on
     * the new connection.
     *
     * @param runId the {@link Outcome#interrupted()} id
     * @param channel the new connection
     * @param capabilities its capabilities
     * @return completes with the outcome or the next interruption, never exceptionally
     */
    public CompletableFuture<Outcome> resume(String runId, FrameChannel<TransferFrame> channel,
                                             Set<TransferCapability> capabilities) {
        Run run = interrupted.remove(runId);
        if (run == null) {
            CompletableFuture<DirectoryTransferResult> settled = settledAtClose.remove(runId);
            if (settled != null) {
                return settled.thenApply(Outcome::done);
            }
            return CompletableFuture.completedFuture(Outcome.done(DirectoryTransferResult.failed(runId,
                    ErrorCode.NOT_FOUND, "no interrupted directory transfer " + runId + " (it ended meanwhile)")));
        }
        return run.continueOn(channel, capabilities);
    }

    /**
     * Gives up an interrupted run (its peer did not come back): what the receiver kept of the file in flight
     * is discarded (here, or on the peer when its next connection comes), that file and every remaining one
     * fail {@code offline}.
     *
     * @param runId the {@link Outcome#interrupted()} id
     * @return completes with the final outcome, never exceptionally
     */
    public CompletableFuture<DirectoryTransferResult> giveUp(String runId) {
        Run run = interrupted.remove(runId);
        if (run == null) {
            CompletableFuture<DirectoryTransferResult> settled = settledAtClose.remove(runId);
            if (settled != null) {
                return settled;     // the endpoint closed meanwhile and gave it up: what landed, what failed
            }
            return CompletableFuture.completedFuture(DirectoryTransferResult.failed(runId, ErrorCode.NOT_FOUND,
                    "no interrupted directory transfer " + runId + " (it ended meanwhile)"));
        }
        return run.giveUp();
    }

    // ---------------------------------------------------------------- inbound

    /** The peer asks for a manifest of one of this side's directories (client side). */
    void onUploadRequest(FrameChannel<TransferFrame> channel, TransferScope scope, Set<TransferCapability> capabilities,
                         DirectoryUploadRequest r) {
        if (!capabilities.contains(TransferCapability.DIRECTORY)) {
            TransferEngine.PEER_NOISE.warn(LOG, "Dropped {} {}: the connection did not negotiate transfer.directory",
                    r.type(), LogLimiter.printable(r.transferId()));
            return;
        }
        engine.executor.execute(() -> {
            ToolException error = null;
            List<DirectoryEntry> entries = List.of();
            try {
                TargetResolution res = engine.resolver.root(scope, null);
                if (!res.ok()) {
                    error = new ToolException(res.code(), res.error());
                } else {
                    entries = list(ConfinedRoot.of(res.root()), r.localPath());
                }
            } catch (ToolException e) {
                error = e;
            } catch (IOException e) {
                error = ConfinedRoot.io(e, r.localPath(), "read");
            } catch (RuntimeException e) {
                LOG.error("Listing directory {} for {} failed", r.localPath(), r.transferId(), e);
                error = new ToolException(ErrorCode.INTERNAL, "internal error on the client");
            }
            int listed = entries.size();
            channel.send(new DirectoryManifest(r.transferId(), r.remotePath(), r.dirName(), r.overwrite(),
                    error == null ? entries : List.of(), error == null ? null : error.getMessage(),
                    error == null ? null : error.code())).whenComplete((v, err) -> {
                        ToolException tooLarge = sizeLimit(err);
                        if (tooLarge != null && channel.isOpen()) {
                            // the listing does not fit one frame: the Brain learns why now, not at its timeout
                            channel.send(new DirectoryManifest(r.transferId(), r.remotePath(), r.dirName(),
                                    r.overwrite(), List.of(), "the listing of " + r.localPath() + " (" + listed
                                    + " entries) does not fit one frame: " + tooLarge.getMessage() + ". Transfer a "
                                    + "smaller part of the tree at once (fewer entries, shorter paths).",
                                    ErrorCode.SIZE_LIMIT));
                        }
                    });
        });
    }

    /** The result of a run that is not bridged; cancelling it cancels the run. */
    private static CompletableFuture<DirectoryTransferResult> resultOf(CompletableFuture<Outcome> phase) {
        return TransferEngine.onCancel(phase.thenApply(Outcome::result), () -> phase.cancel(true));
    }

    /** The size refusal a failed send carries ({@code FrameChannel#send}), or null for any other failure. */
    static ToolException sizeLimit(Throwable err) {
        Throwable t = err instanceof java.util.concurrent.CompletionException && err.getCause() != null
                ? err.getCause() : err;
        return t instanceof ToolException te && te.code() == ErrorCode.SIZE_LIMIT ? te : null;
    }

    /** A manifest: the answer to this side's upload request (Brain), or a download to check (client). */
    void onManifest(FrameChannel<TransferFrame> channel, TransferScope scope, Set<TransferCapability> capabilities,
                    DirectoryManifest m) {
        Run run = runs.get(m.transferId());
        if (run != null) {
            if (!run.channel.id().equals(channel.id()) || run.role != TransferListener.Role.RECEIVER) {
                TransferEngine.PEER_NOISE.warn(LOG, "Ignored {} {} from channel {}", m.type(),
                        LogLimiter.printable(m.transferId()), channel.id());
                return;
            }
            run.onManifest(m);
            return;
        }
        if (!capabilities.contains(TransferCapability.DIRECTORY) || engine.side != org.vancetope.worktarget.core.transfer
                .TransferSide.FOOT) {
            TransferEngine.PEER_NOISE.warn(LOG, "Dropped unsolicited {} {} on channel {}", m.type(),
                    LogLimiter.printable(m.transferId()), channel.id());
            return;
        }
        DirectoryManifestResponse answer;
        try {
            TargetResolution res = engine.resolver.root(scope, null);
            if (!res.ok()) {
                answer = new DirectoryManifestResponse(m.transferId(), false, res.error(), List.of(), res.code());
            } else {
                Admission a = admit(res.root(), m.target(), m.entries(), m.overwrite());
                answer = a.error != null
                        ? new DirectoryManifestResponse(m.transferId(), false, a.error.getMessage(), List.of(), a.error.code())
                        : new DirectoryManifestResponse(m.transferId(), true, null, a.refusedOnly());
            }
        } catch (RuntimeException e) {
            LOG.error("Checking the manifest of {} failed", m.transferId(), e);
            answer = new DirectoryManifestResponse(m.transferId(), false, "internal error on the client", List.of(),
                    ErrorCode.INTERNAL);
        }
        channel.send(answer);
    }

    /**
     * The manifest a directory upload of this side waits for could not be decoded: the upload fails now
     * (nothing of it was written), not at its phase timeout.
     */
    void onUndecodableManifest(FrameChannel<TransferFrame> channel, String transferId, String problem) {
        Run run = runs.get(transferId);
        if (run != null && run.channel.id().equals(channel.id()) && run.role == TransferListener.Role.RECEIVER) {
            run.fail(ErrorCode.BAD_FRAME, "the client's transfer_dir_manifest could not be decoded (" + problem
                    + "); nothing was written. Upload the directory again (a smaller part of the tree at once if "
                    + "the manifest is very large)");
        }
    }

    /** The client's answer to this side's manifest (Brain, download). */
    void onManifestResponse(FrameChannel<TransferFrame> channel, DirectoryManifestResponse r) {
        Run run = runs.get(r.transferId());
        if (run == null || !run.channel.id().equals(channel.id()) || run.role != TransferListener.Role.SENDER) {
            LOG.debug("Dropped {} for unknown directory transfer {}", r.type(), r.transferId());
            return;
        }
        run.onResponse(r);
    }

    /** A single-file transfer made progress: the directory transfer it belongs to reports its own. */
    void onFileProgress(String fileId, long done) {
        Run run = files.get(fileId);
        if (run != null) {
            run.progress(done);
        }
    }

    /** The channel closed: directory transfers awaiting its peer fail now (their files fail on their own). */
    void onClose(FrameChannel<TransferFrame> channel) {
        for (Run r : List.copyOf(runs.values())) {
            if (r.channel.id().equals(channel.id())) {
                r.fail(ErrorCode.OFFLINE, "connection closed");
            }
        }
    }

    /** The endpoint closes: every directory transfer awaiting its peer fails, every interrupted one is given up. */
    void close() {
        closed = true;
        List.copyOf(runs.values()).forEach(r -> r.fail(ErrorCode.OFFLINE, "transfer endpoint closed"));
        // the calls waiting for these runs' peers to come back ask for this outcome when they give up
        List.copyOf(interrupted.keySet()).forEach(id -> settledAtClose.put(id, giveUp(id)));
    }

    /** The directory transfers awaiting their peer's manifest or answer, or interrupted by a lost connection. */
    int pending() {
        return runs.size() + interrupted.size();
    }

    // ---------------------------------------------------------------- listing (sender)

    /**
     * Lists a directory below a root for a manifest, parents before children, names sorted: links and
     * special files are listed and not followed, every file is hashed. Refuses a tree beyond the limits.
     */
    List<DirectoryEntry> list(ConfinedRoot root, String source) throws ToolException, IOException {
        Path dir = root.resolveForRead(source);
        BasicFileAttributes top;
        try {
            top = Files.readAttributes(dir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            top = null;     // said by the open below, as for any missing path
        }
        if (top != null && !top.isDirectory()) {
            throw new ToolException(ErrorCode.INVALID_PARAMS, ConfinedRoot.quote(source) + " is a file, not a "
                    + "directory; a directory transfer sends a whole directory tree. Send one file with "
                    + "client_file_upload or client_file_download.");
        }
        List<DirectoryEntry> out = new ArrayList<>();
        long[] bytes = {0};
        try (SafeDirectory d = root.open(dir)) {
            walk(d, "", out, bytes, source);
        }
        return out;
    }

    private void walk(SafeDirectory d, String prefix, List<DirectoryEntry> out, long[] bytes, String source)
            throws ToolException, IOException {
        List<Path> names = new ArrayList<>(d.entries());
        names.sort(null);
        for (Path name : names) {
            String rel = prefix + name;
            BasicFileAttributes a = d.attributes(name);
            if (out.size() >= engine.settings.maxDirectoryEntries()) {
                throw new ToolException(ErrorCode.SIZE_LIMIT, entriesLimit(source, engine.settings.maxDirectoryEntries()));
            }
            if (a.isSymbolicLink()) {
                out.add(new DirectoryEntry(rel, DirectoryEntry.Kind.LINK, 0, null));
            } else if (a.isDirectory()) {
                out.add(new DirectoryEntry(rel, DirectoryEntry.Kind.DIRECTORY, 0, null));
                try (SafeDirectory child = d.openChild(name)) {
                    walk(child, rel + "/", out, bytes, source);
                }
            } else if (a.isRegularFile()) {
                Sha256.Summary s;
                try (var in = d.openRead(name)) {
                    s = Sha256.of(in);
                }
                bytes[0] += s.size();
                if (bytes[0] > engine.settings.maxDirectoryBytes()) {
                    throw new ToolException(ErrorCode.SIZE_LIMIT, bytesLimit(source, engine.settings.maxDirectoryBytes()));
                }
                out.add(new DirectoryEntry(rel, DirectoryEntry.Kind.FILE, s.size(), s.hash()));
            } else {
                out.add(new DirectoryEntry(rel, DirectoryEntry.Kind.SPECIAL, 0, null));
            }
        }
    }

    static String entriesLimit(String dir, int limit) {
        return "exceeds size limit: directory " + ConfinedRoot.quote(dir) + " has more than " + limit
                + " entries (maxDirectoryEntries); transfer its subdirectories one by one or raise the setting";
    }

    static String bytesLimit(String dir, long limit) {
        return "exceeds size limit: the files of directory " + ConfinedRoot.quote(dir) + " have more than " + limit
                + " bytes together (maxDirectoryBytes); transfer its subdirectories one by one or raise the setting";
    }

    // ---------------------------------------------------------------- admission (receiver)

    /** The receiver's verdict on a manifest: refused as a whole, or an outcome or go-ahead per entry. */
    static final class Admission {
        ToolException error;
        /** Per entry in manifest order: the refusal or skip, or null for a file to transfer / a created directory. */
        final List<DirectoryEntryResult> verdicts = new ArrayList<>();

        List<DirectoryEntryResult> refusedOnly() {
            List<DirectoryEntryResult> out = new ArrayList<>();
            for (DirectoryEntryResult v : verdicts) {
                if (v != null && v.status() == DirectoryEntryResult.Status.FAILED) {
                    out.add(v);
                }
            }
            return out;
        }
    }

    /**
     * Checks a manifest on the receiving side and creates its directories; files are only checked (they
     * are created by their own transfers).
     */
    Admission admit(Path rootDir, String target, List<DirectoryEntry> entries, boolean overwrite) {
        Admission a = new Admission();
        int max = engine.settings.maxDirectoryEntries();
        if (entries.size() > max) {
            a.error = new ToolException(ErrorCode.SIZE_LIMIT, entriesLimit(target, max));
            return a;
        }
        long total = 0;
        for (DirectoryEntry e : entries) {
            total += e.size();
            if (total < 0 || total > engine.settings.maxDirectoryBytes()) {
                a.error = new ToolException(ErrorCode.SIZE_LIMIT, bytesLimit(target, engine.settings.maxDirectoryBytes()));
                return a;
            }
        }
        ConfinedRoot root;
        try {
            ConfinedRoot.refuseReplacementCharacter(target, engine.targetParameter());
            root = ConfinedRoot.of(rootDir);
            Path base = root.resolve(target);
            if (!base.equals(lexical(root, target))) {
                throw ConfinedRoot.escape(target);
            }
            root.requireNoFileOnTheWay(base, "Cannot create directory " + ConfinedRoot.quote(target));
            root.openOrCreate(base).close();
            engine.noteRoot(root);
        } catch (ToolException e) {
            a.error = e;
            return a;
        } catch (IOException e) {
            a.error = ConfinedRoot.io(e, target, "write");
            return a;
        }
        long fileLimit = engine.side.receiveLimit(engine.settings);
        Map<String, DirectoryEntry.Kind> admitted = new HashMap<>();
        admitted.put("", DirectoryEntry.Kind.DIRECTORY);
        for (DirectoryEntry e : entries) {
            DirectoryEntryResult v = admitOne(root, target, e, admitted, fileLimit, overwrite);
            a.verdicts.add(v);
        }
        return a;
    }

    private DirectoryEntryResult admitOne(ConfinedRoot root, String target, DirectoryEntry e,
                                          Map<String, DirectoryEntry.Kind> admitted, long fileLimit, boolean overwrite) {
        String p = e.path();
        String syntax = pathSyntax(p);
        if (syntax != null) {
            return DirectoryEntryResult.failed(e, ErrorCode.PATH_ESCAPE, syntax);
        }
        if (p.indexOf('\uFFFD') >= 0) {
            return DirectoryEntryResult.failed(e, ErrorCode.INVALID_PARAMS, replacementCharacter(p));
        }
        if (admitted.containsKey(p)) {
            return DirectoryEntryResult.failed(e, ErrorCode.INVALID_PARAMS, "entry " + ConfinedRoot.quote(p)
                    + " is listed twice in the manifest");
        }
        int slash = p.lastIndexOf('/');
        String parent = slash < 0 ? "" : p.substring(0, slash);
        DirectoryEntry.Kind parentKind = admitted.get(parent);
        if (parentKind != DirectoryEntry.Kind.DIRECTORY) {
            String why = parentKind == DirectoryEntry.Kind.LINK ? "goes through the link entry " + ConfinedRoot.quote(parent)
                    + " (links are never followed)"
                    : "its directory " + ConfinedRoot.quote(parent) + " is not an accepted directory entry listed before it";
            // mark it, so that nothing below it is accepted either
            return DirectoryEntryResult.failed(e, ErrorCode.PATH_ESCAPE, "entry " + ConfinedRoot.quote(p) + " " + why);
        }
        if (e.kind() == DirectoryEntry.Kind.LINK || e.kind() == DirectoryEntry.Kind.SPECIAL) {
            admitted.put(p, e.kind());
            return new DirectoryEntryResult(p, e.kind(), DirectoryEntryResult.Status.SKIPPED, 0, null,
                    e.kind() == DirectoryEntry.Kind.LINK ? LINK_SKIPPED : SPECIAL_SKIPPED, null);
        }
        String userPath = join(target, p);
        try {
            Path resolved = root.resolve(userPath);
            if (!resolved.equals(lexical(root, userPath))) {
                return DirectoryEntryResult.failed(e, ErrorCode.PATH_ESCAPE, "entry " + ConfinedRoot.quote(p)
                        + " goes through a link on the receiving side (links are never followed)");
            }
            if (e.kind() == DirectoryEntry.Kind.DIRECTORY) {
                root.openOrCreate(resolved).close();
                admitted.put(p, DirectoryEntry.Kind.DIRECTORY);
                return new DirectoryEntryResult(p, e.kind(), DirectoryEntryResult.Status.CREATED, 0, null, null, null);
            }
            if (e.hash() == null || !Sha256.isWellFormed(e.hash())) {
                return DirectoryEntryResult.failed(e, ErrorCode.INVALID_PARAMS, "entry " + ConfinedRoot.quote(p)
                        + ": hash must be \"sha256:\" followed by 64 hex digits");
            }
            if (e.size() > fileLimit) {
                return DirectoryEntryResult.failed(e, ErrorCode.SIZE_LIMIT, TransferEngine.sizeLimitError(e.size(),
                        fileLimit, engine.side.receiveLimitName()));
            }
            ErrorCode clash = clash(resolved, overwrite);
            if (clash != null) {
                return DirectoryEntryResult.failed(e, clash, clashMessage(p, clash));
            }
            admitted.put(p, DirectoryEntry.Kind.FILE);
            return null;
        } catch (ToolException t) {
            return DirectoryEntryResult.failed(e, t.code(), t.getMessage());
        } catch (IOException io) {
            ToolException t = ConfinedRoot.io(io, userPath, "write");
            return DirectoryEntryResult.failed(e, t.code(), t.getMessage());
        }
    }

    /** What keeps a file from landing at a resolved path: something that is not a file, or a file when not overwriting. */
    static ErrorCode clash(Path resolved, boolean overwrite) {
        if (!Files.exists(resolved, LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        if (Files.isSymbolicLink(resolved)) {
            return ErrorCode.PATH_ESCAPE;
        }
        if (!Files.isRegularFile(resolved, LinkOption.NOFOLLOW_LINKS)) {
            return ErrorCode.INVALID_PARAMS;
        }
        return overwrite ? null : ErrorCode.EXISTS;
    }

    static String clashMessage(String p, ErrorCode clash) {
        return switch (clash) {
            case EXISTS -> "entry " + ConfinedRoot.quote(p) + " exists on the receiver; pass overwrite: true to replace "
                    + "existing files";
            case PATH_ESCAPE -> "entry " + ConfinedRoot.quote(p) + " is a link on the receiver (links are never followed)";
            default -> "entry " + ConfinedRoot.quote(p) + " is a directory or special file on the receiver";
        };
    }

    /** Why an entry's path is not a relative path of plain names, or null. */
    static String pathSyntax(String p) {
        if (p.isEmpty()) {
            return "an entry has an empty path";
        }
        if (p.startsWith("/") || p.indexOf('\\') >= 0 || (p.length() > 1 && p.charAt(1) == ':')) {
            return "entry " + ConfinedRoot.quote(p) + " is an absolute name; entries are relative to the directory";
        }
        if (p.indexOf('\0') >= 0) {
            return "entry " + ConfinedRoot.quote(p) + " contains a NUL character";
        }
        for (String part : p.split("/", -1)) {
            if (part.isEmpty() || part.equals(".") || part.equals("..")) {
                return "entry " + ConfinedRoot.quote(p) + " is not a path of plain names (no '..', '.' or empty "
                        + "component)";
            }
        }
        return null;
    }

    /**
     * The refusal of an entry whose path holds U+FFFD: the sender's listing puts it for bytes of a name that
     * are not UTF-8 (names travel as UTF-8 text), so the entry's real name cannot be carried, and written here
     * it would be a name that looks like another one.
     */
    static String replacementCharacter(String p) {
        return "entry " + ConfinedRoot.quote(p) + " has U+FFFD ('\uFFFD') in its path, which stands for bytes of a "
                + "name that are not UTF-8 on the sender (a name written in another encoding); such a name cannot "
                + "travel as it is, so the entry was not transferred. Rename it on the sender (with exec_run, mv and "
                + "a '?' glob for each such byte), then transfer it again.";
    }

    private static Path lexical(ConfinedRoot root, String userPath) {
        Path p = root.root();
        for (String part : userPath.split("/")) {
            if (!part.isEmpty() && !part.equals(".")) {
                p = p.resolve(part);
            }
        }
        return p;
    }

    /** A path below a directory given by a caller: {@code "."} or empty is the directory itself. */
    static String join(String dir, String rel) {
        String d = dir;
        while (d.endsWith("/") && d.length() > 1) {
            d = d.substring(0, d.length() - 1);
        }
        return d.isEmpty() || d.equals(".") ? rel : d + "/" + rel;
    }

    // ---------------------------------------------------------------- one run

    /** A file of a run: its entry, its own transfer id, where it stands in the run's list. */
    private record FileJob(DirectoryEntry entry, String fileId, int index) {
    }

    /**
     * Where a directory transfer stands for a caller that bridges lost connections: ended (with its result),
     * or interrupted by a lost connection (then {@link #resume} or {@link #giveUp} it with this id).
     *
     * @param result the outcome, or null while interrupted
     * @param interrupted the run's id while interrupted, else null
     */
    public record Outcome(DirectoryTransferResult result, String interrupted) {
        static Outcome done(DirectoryTransferResult result) {
            return new Outcome(result, null);
        }
    }

    /** One step of a file on a connection: its transfer, or the resume of it. */
    @FunctionalInterface
    private interface FileStep {
        CompletableFuture<TransferResult> run(FileJob job, FrameChannel<TransferFrame> channel,
                                              Set<TransferCapability> capabilities);
    }

    /**
     * How a run moves its files: {@code start} a file, {@code resume} one a lost connection interrupted (the
     * engine's single-file resume), {@code discard} what its receiver kept of one when the run gives up.
     */
    private record FileSteps(FileStep start, FileStep resume, java.util.function.Consumer<FileJob> discard) {
    }

    /** The outcome of the file that was under way when its directory transfer was cancelled. */
    private static final String CANCELLED_UNDER_WAY = "the directory transfer was cancelled by its caller while this "
            + "file was on its way; nothing of it was written";

    /** One directory transfer this side runs. Synchronized on the instance. */
    private final class Run {
        final String id;
        /** The connection the run's frames go on; a resumed run moves to the peer's new one. */
        volatile FrameChannel<TransferFrame> channel;
        private Set<TransferCapability> capabilities;
        final TransferListener.Role role;
        final boolean overwrite;
        private final FileSteps steps;
        /** Whether a lost connection interrupts the run (its caller bridges it) instead of failing its files. */
        private boolean bridged;
        final CompletableFuture<DirectoryTransferResult> result = new CompletableFuture<>();
        /** What the bridging caller waits for now: the end, or the next interruption. */
        private CompletableFuture<Outcome> phase = new CompletableFuture<>();
        /** The file a lost connection interrupted, while the run is interrupted. */
        private FileJob cut;
        /** Whether the receiver of {@link #cut} kept it (it is resumed, else sent again). */
        private boolean cutKept;
        /** The last file this side sent that landed, on the connection the run is on now. */
        private FileJob lastLanded;
        List<DirectoryEntry> entries;
        TransferScope scope;
        String dirName;
        String target;
        private DirectoryEntryResult[] outcomes;
        private final List<FileJob> jobs = new ArrayList<>();
        private int next;
        private int filesDone;
        private long bytesTotal;
        private long bytesBefore;
        /** The bytes the files committed so far, as their receivers counted them (not as the manifest said). */
        private long landed;
        private TransferScheduler.Cancellable timer;
        /** Whether its caller cancelled it: no further file starts. */
        private boolean cancelled;
        /** The file under way, to cancel with the run. */
        private CompletableFuture<TransferResult> inFlight;

        Run(String id, FrameChannel<TransferFrame> channel, Set<TransferCapability> capabilities,
            TransferListener.Role role, List<DirectoryEntry> entries, boolean overwrite, FileSteps steps,
            boolean bridged) {
            this.id = id;
            this.channel = channel;
            this.capabilities = capabilities;
            this.role = role;
            this.entries = entries;
            this.overwrite = overwrite;
            this.steps = steps;
            this.bridged = bridged;
            result.thenAccept(r -> currentPhase().complete(Outcome.done(r)));
        }

        /** A phase future the caller cancels (its tool call was cancelled) cancels the run. */
        private CompletableFuture<Outcome> cancellable(CompletableFuture<Outcome> phaseFuture) {
            return TransferEngine.onCancel(phaseFuture, this::cancelledByCaller);
        }

        /**
         * The caller cancelled the run: before its files, it fails {@code cancelled} with nothing written; the
         * file under way is stopped (what arrived of it deleted) and no further file starts; files that landed
         * stay, and the result lists every entry. An interrupted run is given up the same way.
         */
        void cancelledByCaller() {
            CompletableFuture<TransferResult> current;
            FileJob cutJob;
            synchronized (this) {
                if (cancelled || result.isDone()) {
                    return;
                }
                cancelled = true;
                current = inFlight;
                cutJob = cut;
                cut = null;
                bridged = false;
            }
            if (runs.containsKey(id)) {
                fail(ErrorCode.CANCELLED, "the directory transfer was cancelled by its caller before any file was "
                        + "transferred; nothing was written");
                return;
            }
            if (cutJob != null) {
                interrupted.remove(id, this);
                steps.discard().accept(cutJob);
                record(cutJob, TransferResult.failed(cutJob.fileId, ErrorCode.CANCELLED, CANCELLED_UNDER_WAY));
                nextFile();
            } else if (current != null) {
                current.cancel(true);       // its end records it and goes on to nextFile, which starts nothing more
            }
        }

        private synchronized CompletableFuture<Outcome> currentPhase() {
            return phase;
        }

        CompletableFuture<Outcome> start(TransferFrame first) {
            CompletableFuture<Outcome> started = cancellable(currentPhase());
            if (!channel.isOpen()) {
                result.complete(DirectoryTransferResult.failed(id, ErrorCode.OFFLINE, "connection closed"));
                return started;
            }
            runs.put(id, this);
            synchronized (this) {
                Duration timeout = engine.phaseTimeout();
                timer = engine.scheduler.schedule(timeout, () -> fail(ErrorCode.TIMEOUT, "manifest timeout: the peer "
                        + "did not answer " + first.type() + " within " + timeout.toSeconds() + " s (phaseTimeout)"));
            }
            channel.send(first).whenComplete((v, err) -> {
                ToolException tooLarge = sizeLimit(err);
                if (tooLarge != null && channel.isOpen()) {
                    fail(ErrorCode.SIZE_LIMIT, "the " + first.type() + " frame does not fit: " + tooLarge.getMessage()
                            + ". Transfer a smaller part of the tree at once (fewer entries, shorter paths).");
                } else if (err != null && channel.isOpen()) {
                    fail(ErrorCode.INTERNAL, "the " + first.type() + " frame could not be sent (" + err.getMessage()
                            + "); transfer a smaller part of the tree at once");
                } else if (err != null) {
                    fail(ErrorCode.OFFLINE, "connection closed");
                }
            });
            return started;
        }

        /** Fails the run before its files started; nothing of it was written. */
        void fail(ErrorCode code, String error) {
            synchronized (this) {
                if (!runs.remove(id, this)) {
                    return;
                }
                cancelTimer();
            }
            result.complete(DirectoryTransferResult.failed(id, code, error));
        }

        private void cancelTimer() {
            if (timer != null) {
                timer.cancel();
                timer = null;
            }
        }

        /** Upload: the client's manifest arrived; check it here, the receiver. */
        void onManifest(DirectoryManifest m) {
            synchronized (this) {
                if (!runs.remove(id, this)) {
                    return;
                }
                cancelTimer();
            }
            if (m.error() != null) {
                result.complete(DirectoryTransferResult.failed(id, m.code() == null ? ErrorCode.INTERNAL : m.code(),
                        m.error()));
                return;
            }
            TargetResolution res = engine.resolver.root(scope, dirName);
            if (!res.ok()) {
                result.complete(DirectoryTransferResult.failed(id, res.code(), res.error()));
                return;
            }
            entries = m.entries();
            Admission a = admit(res.root(), target, entries, overwrite);
            if (a.error != null) {
                result.complete(DirectoryTransferResult.failed(id, a.error.code(), a.error.getMessage()));
                return;
            }
            begin(a.verdicts);
        }

        /** Download: the client checked the manifest. */
        void onResponse(DirectoryManifestResponse r) {
            synchronized (this) {
                if (!runs.remove(id, this)) {
                    return;
                }
                cancelTimer();
            }
            if (!r.ok()) {
                String error = r.error() == null ? "the client refused the manifest" : r.error();
                result.complete(DirectoryTransferResult.failed(id, r.code() == null ? ErrorCode.INTERNAL : r.code(), error));
                return;
            }
            Map<String, DirectoryEntryResult> refused = new HashMap<>();
            r.refused().forEach(x -> refused.putIfAbsent(x.path(), x));
            List<DirectoryEntryResult> verdicts = new ArrayList<>(entries.size());
            for (DirectoryEntry e : entries) {
                DirectoryEntryResult x = refused.get(e.path());
                if (x != null) {
                    verdicts.add(DirectoryEntryResult.failed(e, x.code(), x.error()));
                } else if (e.kind() == DirectoryEntry.Kind.DIRECTORY) {
                    verdicts.add(new DirectoryEntryResult(e.path(), e.kind(), DirectoryEntryResult.Status.CREATED, 0,
                            null, null, null));
                } else if (e.kind() == DirectoryEntry.Kind.FILE) {
                    verdicts.add(null);
                } else {
                    verdicts.add(new DirectoryEntryResult(e.path(), e.kind(), DirectoryEntryResult.Status.SKIPPED, 0,
                            null, e.kind() == DirectoryEntry.Kind.LINK ? LINK_SKIPPED : SPECIAL_SKIPPED, null));
                }
            }
            begin(verdicts);
        }

        /** The verdicts are in (null: a file to transfer): send or request the files one after the other. */
        private void begin(List<DirectoryEntryResult> verdicts) {
            synchronized (this) {
                outcomes = verdicts.toArray(new DirectoryEntryResult[0]);
                for (int i = 0; i < outcomes.length; i++) {
                    if (outcomes[i] == null) {
                        DirectoryEntry e = entries.get(i);
                        jobs.add(new FileJob(e, engine.newId(), i));
                        bytesTotal += e.size();
                    }
                }
            }
            engine.notifyDirectoryProgress(id, role, 0, jobs.size(), 0, bytesTotal);
            nextFile();
        }

        /**
         * Starts the next files: one at a time, each when the one before ended. Files that end at once (a
         * refusal before anything was sent) are handled in this loop, not by recursion.
         */
        private void nextFile() {
            while (true) {
                FileJob job;
                boolean stop;
                synchronized (this) {
                    job = next < jobs.size() ? jobs.get(next++) : null;
                    stop = cancelled;
                    inFlight = null;
                }
                if (job == null) {
                    result.complete(DirectoryTransferResult.of(id, List.of(outcomes)));
                    return;
                }
                if (stop) {
                    record(job, TransferResult.failed(job.fileId, ErrorCode.CANCELLED, "not transferred: the directory "
                            + "transfer was cancelled by its caller"));
                    continue;
                }
                CompletableFuture<TransferResult> f = startFile(job, false);
                synchronized (this) {
                    inFlight = f;
                }
                if (!f.isDone()) {
                    f.whenComplete((r, err) -> {
                        if (ended(job, r, err)) {
                            nextFile();
                        }
                    });
                    return;
                }
                if (!ended(job, f.getNow(null), null)) {
                    return;
                }
            }
        }

        /** A file ended: records it (true), or the lost connection interrupts the run (false). */
        private boolean ended(FileJob job, TransferResult r, Throwable err) {
            TransferResult res = r != null ? r
                    : err instanceof java.util.concurrent.CancellationException
                    ? TransferResult.failed(job.fileId, ErrorCode.CANCELLED, CANCELLED_UNDER_WAY)
                    : TransferResult.failed(job.fileId, ErrorCode.INTERNAL, "internal error: " + err);
            if (interrupt(job, res)) {
                return false;
            }
            record(job, res);
            return true;
        }

        /**
         * Interrupts the run when a bridged file ended because its connection was lost and the connection
         * negotiated {@link TransferCapability#RESUME}: its receiver kept it (it has a resume id), or the
         * connection closed before it got going; the bridging caller learns it and resumes or gives up the run.
         */
        private boolean interrupt(FileJob job, TransferResult r) {
            CompletableFuture<Outcome> waiting;
            synchronized (this) {
                if (!bridged || closed || r.ok() || r.code() != ErrorCode.OFFLINE
                        || !capabilities.contains(TransferCapability.RESUME)
                        || (r.resumeId() == null && channel.isOpen())) {
                    return false;
                }
                cut = job;
                cutKept = r.resumeId() != null;
                waiting = phase;
                interrupted.put(id, this);
                if (lastLanded != null) {
                    // its transfer_finish may have been lost with the connection: the receiver would keep the
                    // file's sidecar until its retention ends, so it gets the frame on its next connection
                    engine.oweFinish(lastLanded.fileId, scope, true);
                    lastLanded = null;
                }
            }
            files.remove(job.fileId, this);
            LOG.debug("Directory transfer {} interrupted at {}: its connection was lost", id, job.entry.path());
            waiting.complete(new Outcome(null, id));
            return true;
        }

        /** The peer is back: resumes the interrupted file on its new connection, then the rest follow there. */
        CompletableFuture<Outcome> continueOn(FrameChannel<TransferFrame> on, Set<TransferCapability> caps) {
            CompletableFuture<Outcome> waiting = cancellable(new CompletableFuture<>());
            FileJob job;
            boolean kept;
            synchronized (this) {
                channel = on;
                capabilities = caps;
                phase = waiting;
                job = cut;
                kept = cutKept;
                cut = null;
            }
            carryOn(job, kept);
            return waiting;
        }

        /** Resumes a file (sent again from its start when its receiver kept nothing of it), then goes on. */
        private void carryOn(FileJob job, boolean resume) {
            CompletableFuture<TransferResult> f = startFile(job, resume);
            synchronized (this) {
                inFlight = f;
            }
            f.whenComplete((r, err) -> {
                if (resume && r != null && !r.ok() && r.code() == ErrorCode.NOT_FOUND) {
                    carryOn(job, false);        // nothing was kept of it (cut before it got going): send it whole
                } else if (ended(job, r, err)) {
                    nextFile();
                }
            });
        }

        /**
         * The peer did not come back: what its receiver kept of the interrupted file is discarded, that file
         * fails {@code offline}, and so does every remaining one (the connection is closed), as without
         * bridging.
         */
        CompletableFuture<DirectoryTransferResult> giveUp() {
            FileJob job;
            synchronized (this) {
                job = cut;
                cut = null;
                bridged = false;
            }
            if (job != null) {
                steps.discard().accept(job);
                record(job, TransferResult.failed(job.fileId, ErrorCode.OFFLINE, "connection closed and the client "
                        + "did not come back within reconnectWait (" + engine.reconnectWait().toSeconds() + " s); what "
                        + "arrived of this file is discarded: transfer the directory again"));
                nextFile();
            }
            return result;
        }

        private CompletableFuture<TransferResult> startFile(FileJob job, boolean resume) {
            if (resume) {
                files.put(job.fileId, this);
                return step(steps.resume(), job);
            }
            long max = engine.settings.maxDirectoryBytes();
            long sofar;
            synchronized (this) {
                sofar = landed;
            }
            if (sofar + job.entry.size() > max) {
                // the files that landed were larger than their manifest said: the limit holds for what was written
                return CompletableFuture.completedFuture(TransferResult.failed(job.fileId, ErrorCode.SIZE_LIMIT,
                        bytesLimit(target == null ? "." : target, max)));
            }
            if (role == TransferListener.Role.RECEIVER && !overwrite) {
                // the upload's receiver is this side: check again just before the file, narrowing the window
                TargetResolution res = engine.resolver.root(scope, dirName);
                ErrorCode clash = null;
                if (res.ok()) {
                    try {
                        clash = clash(ConfinedRoot.of(res.root()).resolve(join(target, job.entry.path())), false);
                    } catch (ToolException | IOException e) {
                        clash = null; // the file's own transfer reports it
                    }
                }
                if (clash != null) {
                    return CompletableFuture.completedFuture(new TransferResult(job.fileId, false, 0, null,
                            clashMessage(job.entry.path(), clash), clash));
                }
            }
            files.put(job.fileId, this);
            return step(steps.start(), job);
        }

        /** Runs a step of a file on the run's connection now. */
        private CompletableFuture<TransferResult> step(FileStep step, FileJob job) {
            FrameChannel<TransferFrame> on;
            Set<TransferCapability> caps;
            synchronized (this) {
                on = channel;
                caps = capabilities;
            }
            try {
                return step.run(job, on, caps);
            } catch (RuntimeException e) {
                LOG.error("Directory transfer {}: file {} failed to start", id, job.entry.path(), e);
                return CompletableFuture.completedFuture(TransferResult.failed(job.fileId, ErrorCode.INTERNAL,
                        "internal error: " + e.getClass().getSimpleName()));
            }
        }

        private void record(FileJob job, TransferResult r) {
            files.remove(job.fileId, this);
            DirectoryEntry e = job.entry;
            DirectoryEntryResult out;
            if (!r.ok()) {
                out = DirectoryEntryResult.failed(e, r.code(), r.error());
            } else if (r.hash() == null || !r.hash().equalsIgnoreCase(e.hash()) || r.bytesWritten() != e.size()) {
                out = new DirectoryEntryResult(e.path(), e.kind(), DirectoryEntryResult.Status.FAILED, r.bytesWritten(),
                        r.hash(), "hash mismatch: the file the sender sent differs from its manifest entry (it changed "
                        + "after it was listed); the verified content it sent is in place, transfer it again to be sure",
                        ErrorCode.HASH_MISMATCH);
            } else {
                out = new DirectoryEntryResult(e.path(), e.kind(), DirectoryEntryResult.Status.WRITTEN, r.bytesWritten(),
                        r.hash(), null, null);
            }
            int done;
            long before;
            synchronized (this) {
                lastLanded = r.ok() && role == TransferListener.Role.SENDER ? job : null;
                outcomes[job.index] = out;
                landed += r.ok() ? r.bytesWritten() : 0;
                filesDone++;
                bytesBefore += e.size();
                done = filesDone;
                before = bytesBefore;
            }
            engine.notifyDirectoryProgress(id, role, done, jobs.size(), before, bytesTotal);
        }

        void progress(long fileDone) {
            int done;
            long before;
            synchronized (this) {
                done = filesDone;
                before = bytesBefore;
            }
            engine.notifyDirectoryProgress(id, role, done, jobs.size(), before + fileDone, bytesTotal);
        }
    }
}
