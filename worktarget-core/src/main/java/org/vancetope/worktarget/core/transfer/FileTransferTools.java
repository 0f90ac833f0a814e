package org.vancetope.worktarget.core.transfer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.vancetope.worktarget.core.internal.Params;
import org.vancetope.worktarget.core.internal.ResultSchemas;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.internal.transfer.DirectoryTransfers;
import org.vancetope.worktarget.core.internal.Schema;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.spi.ToolLabel;
import org.vancetope.worktarget.spi.ToolSpec;

/**
 * The Brain's transfer tools: {@code client_file_upload} copies a file from the
 * client into a RootDir, {@code client_file_download} copies a RootDir file to the client. Both
 * block until the transfer ended and return {@code ok}, {@code bytesWritten}, {@code hash} and, when
 * not ok, {@code error} and {@code code}. {@code client_dir_upload} and {@code client_dir_download} do
 * the same for a whole directory tree in one call ({@link TransferCapability#DIRECTORY}) and return
 * every entry's outcome ({@link DirectoryTransferResult}). Also builds {@code workspace_create_ephemeral_dir}
 * around an {@link EphemeralDirCreator}.
 *
 * <pre>{@code
 * FileTransferTools transfer = new FileTransferTools(
 *         new RootDirTargetResolver((scope, dir) -> workspace.findRoot(scope.tenant(), scope.project(), dir)),
 *         ctx -> sessions.transferConnection(ctx.sessionId()));
 * List<BackendTool> tools = transfer.tools();
 * TransferResult r = transfer.download(ctx, "reports", "2026-q2.pdf", "reports/2026-q2.pdf", null);
 * }</pre>
 *
 * <p>Transfer failures (missing RootDir, refused path, hash mismatch, timeouts) are results with
 * {@code ok:false}; only bad parameters ({@code invalid_params}) and a missing client
 * ({@code offline}) are thrown. It does not create RootDirs or retry.
 */
public final class FileTransferTools {
    /** The upload tool's name. */
    public static final String UPLOAD = "client_file_upload";
    /** The download tool's name. */
    public static final String DOWNLOAD = "client_file_download";
    /** The directory upload tool's name. */
    public static final String DIR_UPLOAD = "client_dir_upload";
    /** The directory download tool's name. */
    public static final String DIR_DOWNLOAD = "client_dir_download";
    /** The ephemeral RootDir tool's name. */
    public static final String CREATE_EPHEMERAL_DIR = "workspace_create_ephemeral_dir";

    private static final Map<String, Object> ATTRS_SCHEMA = attrsSchema();
    /** What both directory tools do with the tree and return. */
    private static final String DIR_TREE = ": nested directories (also empty ones) and files, each file verified by sha256 "
            + "and put in place whole or not at all. Links are never followed nor created: they are listed as skipped. "
            + "Existing files are kept unless overwrite is true. Returns ok, filesWritten, bytesWritten and every entry "
            + "with its status (written, created, skipped, failed with error and code); ok is false when an entry failed "
            + "or the whole transfer did (then error and code). A short disconnect of the client is bridged; when the "
            + "client stays away, the files not yet in place fail with code 'offline' (nothing of them is kept): call "
            + "again with overwrite true to send the whole tree again.";
    private static final String OVERWRITE = "Replace files that exist already (default false: they are reported as "
            + "failed with code exists and left as they are).";

    /** The spec of {@code client_file_upload}. */
    public static final ToolSpec UPLOAD_SPEC = new ToolSpec(UPLOAD,
            "Copy a file from the user's machine (the client's workspace) into a server RootDir. The RootDir must exist "
                    + "(create one with workspace_create_ephemeral_dir). Returns ok, bytesWritten, hash (sha256) and, "
                    + "when not ok, error and its stable code. A short disconnect of the client is bridged; when the "
                    + "client stays away the result has code 'offline' and a resumeId: call again with the same "
                    + "parameters and that resumeId to send only the rest.",
            true, Set.of(ToolLabel.WRITE, ToolLabel.SIDE_EFFECT, ToolLabel.IDEMPOTENT, ToolLabel.CLOSED_WORLD),
            Schema.object()
                    .string("localPath", "Path of the file on the client, relative to its workspace.", true)
                    .string("dirName", "The server RootDir to write into; must exist.", true)
                    .string("remotePath", "Path relative to the RootDir; missing directories are created.", true)
                    .prop("attrs", ATTRS_SCHEMA, false)
                    .string("resumeId", "The resumeId of an earlier call of this upload that the client's "
                            + "disconnect interrupted: the part the server kept is completed instead of sent again.", false)
                    .build(), "Upload file from the client", ResultSchemas.transfer());

    /** The spec of {@code client_file_download}. */
    public static final ToolSpec DOWNLOAD_SPEC = new ToolSpec(DOWNLOAD,
            "Copy a file from a server RootDir to the user's machine (the client's workspace). Returns ok, bytesWritten, "
                    + "hash (sha256) and, when not ok, error and its stable code. A short disconnect of the client is "
                    + "bridged; when the client stays away the result has code 'offline' and a resumeId: call again with "
                    + "the same parameters and that resumeId to send only the rest.",
            true, Set.of(ToolLabel.WRITE, ToolLabel.SIDE_EFFECT, ToolLabel.IDEMPOTENT, ToolLabel.CLOSED_WORLD),
            Schema.object()
                    .string("dirName", "The server RootDir the file is in.", true)
                    .string("remotePath", "Path of the file relative to the RootDir.", true)
                    .string("localPath", "Where to write it on the client, relative to its workspace; missing "
                            + "directories are created and an existing file is replaced.", true)
                    .prop("attrs", ATTRS_SCHEMA, false)
                    .string("resumeId", "The resumeId of an earlier call of this download that the client's "
                            + "disconnect interrupted: the client's kept part is completed instead of sent again.", false)
                    .build(), "Download file to the client", ResultSchemas.transfer());

    /** The spec of {@code client_dir_upload}. */
    public static final ToolSpec DIR_UPLOAD_SPEC = new ToolSpec(DIR_UPLOAD,
            "Copy a whole directory tree from the user's machine (the client's workspace) into a server RootDir in one "
                    + "call" + DIR_TREE,
            true, Set.of(ToolLabel.WRITE, ToolLabel.SIDE_EFFECT, ToolLabel.IDEMPOTENT, ToolLabel.CLOSED_WORLD),
            Schema.object()
                    .string("localPath", "Directory on the client, relative to its workspace ('.' for all of it).", true)
                    .string("dirName", "The server RootDir to write into; must exist.", true)
                    .string("remotePath", "Directory relative to the RootDir ('.' for the RootDir itself); missing "
                            + "directories are created.", true)
                    .bool("overwrite", OVERWRITE)
                    .build(), "Upload directory from the client", ResultSchemas.directoryTransfer());

    /** The spec of {@code client_dir_download}. */
    public static final ToolSpec DIR_DOWNLOAD_SPEC = new ToolSpec(DIR_DOWNLOAD,
            "Copy a whole directory tree from a server RootDir to the user's machine (the client's workspace) in one "
                    + "call" + DIR_TREE,
            true, Set.of(ToolLabel.WRITE, ToolLabel.SIDE_EFFECT, ToolLabel.IDEMPOTENT, ToolLabel.CLOSED_WORLD),
            Schema.object()
                    .string("dirName", "The server RootDir the directory is in.", true)
                    .string("remotePath", "Directory relative to the RootDir ('.' for the whole RootDir).", true)
                    .string("localPath", "Where to put it on the client, relative to its workspace; missing "
                            + "directories are created.", true)
                    .bool("overwrite", OVERWRITE)
                    .build(), "Download directory to the client", ResultSchemas.directoryTransfer());

    /** The longest {@code purpose} of {@code workspace_create_ephemeral_dir}: a label, kept in the RootDir's descriptor. */
    public static final int MAX_PURPOSE_CHARS = 256;

    /** The spec of {@code workspace_create_ephemeral_dir}. */
    public static final ToolSpec CREATE_EPHEMERAL_DIR_SPEC = new ToolSpec(CREATE_EPHEMERAL_DIR,
            "Create an empty, temporary server RootDir for a file transfer (a drop box). Returns its dirName. Its content "
                    + "does not survive a suspend and is deleted when this process closes unless deleteOnCreatorClose is false.",
            true, Set.of(ToolLabel.WRITE, ToolLabel.NON_DESTRUCTIVE, ToolLabel.CLOSED_WORLD), Schema.object()
                    .string("purpose", "What the RootDir is for, e.g. 'user-upload' (kept as metadata).", false)
                    .bool("deleteOnCreatorClose", "Delete the RootDir when this process closes (default true).")
                    .build(), "Create temporary RootDir", ResultSchemas.ephemeralDir());

    private final RootDirTargetResolver roots;
    private final Function<ToolContext, Optional<TransferConnection>> connections;

    /**
     * Creates the tools.
     *
     * @param roots the Brain's RootDirs (the same resolver the Brain's {@link TransferEndpoint} uses)
     * @param connections the transfer connection of a calling process's remote peer (for host tools the
     *                    dispatcher puts it in {@link ToolContext#peer()}), empty when none is connected
     */
    public FileTransferTools(RootDirTargetResolver roots, Function<ToolContext, Optional<TransferConnection>> connections) {
        this.roots = Objects.requireNonNull(roots, "roots");
        this.connections = Objects.requireNonNull(connections, "connections");
    }

    private static Map<String, Object> attrsSchema() {
        Map<String, Object> mode = new LinkedHashMap<>();
        mode.put("type", "string");
        mode.put("description", "POSIX permission bits in octal, e.g. '0644'. Masked by the receiver.");
        mode.put("pattern", "^0?[0-7]{1,4}$");
        Map<String, Object> mtime = new LinkedHashMap<>();
        mtime.put("type", "string");
        mtime.put("description", "Modification time as an ISO-8601 instant, e.g. '2026-05-01T14:23:11Z'.");
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("mode", mode);
        props.put("mtime", mtime);
        Map<String, Object> attrs = new LinkedHashMap<>();
        attrs.put("type", "object");
        attrs.put("description", "Optional overrides of the file's mode and modification time.");
        attrs.put("properties", props);
        attrs.put("additionalProperties", false);
        return attrs;
    }

    /**
     * {@code client_file_upload}, {@code client_file_download}, {@code client_dir_upload} and
     * {@code client_dir_download} as backend tools, in this order.
     *
     * @return the four tools
     */
    public List<BackendTool> tools() {
        return List.of(
                BackendTool.of(UPLOAD_SPEC, (p, ctx) -> upload(ctx, Params.requireString(p, "localPath"),
                        Params.requireString(p, "dirName"), Params.requireString(p, "remotePath"), attrs(p),
                        Params.optString(p, "resumeId", null)).toToolResult()),
                BackendTool.of(DOWNLOAD_SPEC, (p, ctx) -> download(ctx, Params.requireString(p, "dirName"),
                        Params.requireString(p, "remotePath"), Params.requireString(p, "localPath"), attrs(p),
                        Params.optString(p, "resumeId", null)).toToolResult()),
                BackendTool.of(DIR_UPLOAD_SPEC, (p, ctx) -> uploadDirectory(ctx, Params.requireString(p, "localPath"),
                        Params.requireString(p, "dirName"), Params.requireString(p, "remotePath"),
                        Params.optBoolean(p, "overwrite", false)).toToolResult()),
                BackendTool.of(DIR_DOWNLOAD_SPEC, (p, ctx) -> downloadDirectory(ctx, Params.requireString(p, "dirName"),
                        Params.requireString(p, "remotePath"), Params.requireString(p, "localPath"),
                        Params.optBoolean(p, "overwrite", false)).toToolResult()));
    }

    /**
     * {@code workspace_create_ephemeral_dir} around a creator.
     *
     * @param creator creates the RootDir (the workspace backend)
     * @return the tool; its result is {@code {"dirName": "..."}}
     */
    public static BackendTool ephemeralDirTool(EphemeralDirCreator creator) {
        Objects.requireNonNull(creator, "creator");
        return BackendTool.of(CREATE_EPHEMERAL_DIR_SPEC, (p, ctx) -> {
            String purpose = Params.optString(p, "purpose", null);
            if (purpose != null && purpose.length() > MAX_PURPOSE_CHARS) {
                throw new ToolException(ErrorCode.INVALID_PARAMS, "Parameter 'purpose' has " + purpose.length()
                        + " characters, more than the " + MAX_PURPOSE_CHARS + " allowed: it is a short label kept with "
                        + "the RootDir, such as 'user-upload'. Nothing was created.");
            }
            String dirName = creator.create(ctx, purpose, Params.optBoolean(p, "deleteOnCreatorClose", true));
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("dirName", dirName);
            return result;
        });
    }

    /**
     * Copies a client file into a RootDir. A missing RootDir or a refused {@code remotePath} fails
     * before anything is sent to the client.
     *
     * @param context the calling process
     * @param localPath the file on the client
     * @param dirName the RootDir
     * @param remotePath the path in the RootDir
     * @param attrs overrides, or null
     * @return the outcome
     * @throws ToolException {@code offline} when no client is connected, {@code cancelled} when interrupted
     */
    public TransferResult upload(ToolContext context, String localPath, String dirName, String remotePath,
                                 TransferAttrs attrs) throws ToolException {
        return upload(context, localPath, dirName, remotePath, attrs, null);
    }

    /**
     * Copies a client file into a RootDir, or completes an interrupted copy of it. When the connection
     * negotiated {@link TransferCapability#RESUME} and is lost mid-transfer, the server keeps what arrived and
     * the call waits up to {@link TransferConnection#reconnectWait()} for the client to come back, then asks
     * it to resume on its new connection; when it does not come back, the result is {@code offline} with a
     * {@link TransferResult#resumeId()} to pass here later.
     *
     * @param context the calling process
     * @param localPath the file on the client
     * @param dirName the RootDir
     * @param remotePath the path in the RootDir
     * @param attrs overrides, or null
     * @param resumeId the resume id of an interrupted upload of the same file, or null for a new one
     * @return the outcome
     * @throws ToolException {@code offline} when no client is connected, {@code cancelled} when interrupted
     */
    public TransferResult upload(ToolContext context, String localPath, String dirName, String remotePath,
                                 TransferAttrs attrs, String resumeId) throws ToolException {
        TransferScope scope = new TransferScope(context.tenant(), context.project());
        Optional<Path> root = roots.find(scope, dirName);
        if (root.isEmpty()) {
            return TransferResult.failed(null, ErrorCode.NOT_FOUND, RootDirTargetResolver.notFound(dirName));
        }
        if (!Files.isWritable(root.get())) {
            return TransferResult.failed(null, ErrorCode.FORBIDDEN, RootDirTargetResolver.notWritable(dirName));
        }
        TransferResult refusal = check(root.get(), remotePath, false);
        if (refusal != null) {
            return refusal;
        }
        TransferConnection conn = connection(context);
        return resuming(context, conn, resumeId == null ? conn.requestUpload(scope, localPath, dirName, remotePath, attrs)
                : conn.resumeUpload(resumeId, scope, localPath, dirName, remotePath, attrs), TransferResult::resumeId,
                (c, id) -> c.resumeUpload(id, scope, localPath, dirName, remotePath, attrs), KEEP_RESUME_ID);
    }

    /** A single file the peer did not come back for stays kept: its result hands out the resume id. */
    private static final BiFunction<TransferConnection, TransferResult, CompletableFuture<TransferResult>>
            KEEP_RESUME_ID = (conn, r) -> CompletableFuture.completedFuture(r);

    /**
     * Waits for a transfer (a file's, or a directory's); while it ends interrupted with a resume id (its
     * connection was lost and the receiver kept what arrived), waits up to the reconnect wait for the peer to
     * come back and takes it up on the new connection. When the peer does not come back, {@code giveUp} settles
     * the interrupted outcome on the last connection; when the call is interrupted, an interruption that came or
     * comes later is given up without waiting for it.
     *
     * @param resumeIdOf the resume id of an interrupted outcome, null for a final one
     * @param resume takes up an interrupted transfer on a new connection
     * @param giveUp settles an interrupted outcome when the peer stays away
     */
    private <T> T resuming(ToolContext context, TransferConnection first, CompletableFuture<T> started,
                           Function<T, String> resumeIdOf,
                           BiFunction<TransferConnection, String, CompletableFuture<T>> resume,
                           BiFunction<TransferConnection, T, CompletableFuture<T>> giveUp) throws ToolException {
        TransferConnection conn = first;
        CompletableFuture<T> pending = started;
        boolean givenUp = false;
        try {
            T r = await(pending);
            for (int resumes = 0; resumeIdOf.apply(r) != null && resumes < MAX_RESUMES_PER_CALL; resumes++) {
                Optional<TransferConnection> back = awaitReturn(context, conn);
                if (back.isEmpty()) {
                    break;
                }
                conn = back.get();
                pending = resume.apply(conn, resumeIdOf.apply(r));
                r = await(pending);
            }
            if (resumeIdOf.apply(r) == null) {
                return r;
            }
            givenUp = true;
            // settled at once for a single file (its resume id is the answer), even when the call was
            // interrupted while it waited for the peer (e.g. the server shuts down)
            return await(giveUp.apply(conn, r));
        } catch (ToolException e) {
            if (!givenUp) {
                // the call ends now (interrupted): an interruption that came, or comes later, is given up unawaited
                TransferConnection last = conn;
                pending.thenAccept(x -> {
                    if (resumeIdOf.apply(x) != null) {
                        giveUp.apply(last, x);
                    }
                });
            }
            throw e;
        }
    }

    /**
     * Copies a RootDir file to the client.
     *
     * @param context the calling process
     * @param dirName the RootDir
     * @param remotePath the file in the RootDir
     * @param localPath where to write it on the client
     * @param attrs overrides of the file's own mode and mtime, or null
     * @return the outcome
     * @throws ToolException {@code offline} when no client is connected, {@code cancelled} when interrupted
     */
    public TransferResult download(ToolContext context, String dirName, String remotePath, String localPath,
                                   TransferAttrs attrs) throws ToolException {
        return download(context, dirName, remotePath, localPath, attrs, null);
    }

    /**
     * Copies a RootDir file to the client, or completes an interrupted copy of it. When the connection
     * negotiated {@link TransferCapability#RESUME} and is lost mid-transfer, the call waits up to
     * {@link TransferConnection#reconnectWait()} for the client to come back and resumes on its new
     * connection; when it does not come back, the result is {@code offline} with a
     * {@link TransferResult#resumeId()} to pass here later.
     *
     * @param context the calling process
     * @param dirName the RootDir
     * @param remotePath the file in the RootDir
     * @param localPath where to write it on the client
     * @param attrs overrides of the file's own mode and mtime, or null
     * @param resumeId the resume id of an interrupted download of the same file, or null for a new one
     * @return the outcome
     * @throws ToolException {@code offline} when no client is connected, {@code cancelled} when interrupted
     */
    public TransferResult download(ToolContext context, String dirName, String remotePath, String localPath,
                                   TransferAttrs attrs, String resumeId) throws ToolException {
        TransferScope scope = new TransferScope(context.tenant(), context.project());
        Optional<Path> root = roots.find(scope, dirName);
        if (root.isEmpty()) {
            return TransferResult.failed(null, ErrorCode.NOT_FOUND, RootDirTargetResolver.notFound(dirName));
        }
        TransferResult refusal = check(root.get(), remotePath, true);
        if (refusal != null) {
            return refusal;
        }
        TransferConnection conn = connection(context);
        return resuming(context, conn, resumeId == null ? conn.send(root.get(), remotePath, localPath, null, attrs)
                : conn.resume(resumeId, root.get(), remotePath, localPath, null, attrs), TransferResult::resumeId,
                (c, id) -> c.resume(id, root.get(), remotePath, localPath, null, attrs), KEEP_RESUME_ID);
    }

    /** How often one call takes up its transfer again after a lost connection. */
    private static final int MAX_RESUMES_PER_CALL = 32;
    /** The longest the wait for a returning peer goes without looking for its connection again. */
    private static final long LOOK_AGAIN_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(200);

    /**
     * Waits, up to the connection's reconnect wait, for the calling process's peer to have a new
     * connection; empty when it did not come back in time or the calling thread was interrupted (its
     * interrupt flag is then set again).
     */
    private Optional<TransferConnection> awaitReturn(ToolContext context, TransferConnection lost) {
        long deadline = System.nanoTime() + lost.reconnectWait().toNanos();
        while (true) {
            CompletableFuture<Void> attached = lost.nextAttach();
            Optional<TransferConnection> now = connections.apply(context);
            if (now != null && now.isPresent() && now.get() != lost && now.get().channel().isOpen()) {
                return now;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return Optional.empty();
            }
            try {
                attached.get(Math.min(left, LOOK_AGAIN_NANOS), java.util.concurrent.TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.TimeoutException | ExecutionException e) {
                // look again
            } catch (InterruptedException e) {
                // the call is being ended (cancelled, or the server shuts down): no more waiting, and the
                // interrupted outcome with its resume id is the answer; the flag stays set for the caller
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        }
    }

    /**
     * Copies a client directory tree into a RootDir ({@code client_dir_upload}). A missing or read-only
     * RootDir or a refused {@code remotePath} fails before anything is sent to the client; the client's
     * manifest is then checked here entry by entry. When the connection negotiated
     * {@link TransferCapability#RESUME} and is lost while the files are sent, the call waits up to
     * {@link TransferConnection#reconnectWait()} for the client to come back, resumes the file in flight on its
     * new connection and sends the rest there; when it does not come back, what was kept of the file in flight
     * is discarded and the files not yet in place fail {@code offline}.
     *
     * @param context the calling process
     * @param localPath the directory on the client
     * @param dirName the RootDir
     * @param remotePath the directory in the RootDir ({@code "."} for the RootDir itself)
     * @param overwrite whether existing files may be replaced
     * @return every entry's outcome
     * @throws ToolException {@code offline} when no client is connected, {@code cancelled} when interrupted
     */
    public DirectoryTransferResult uploadDirectory(ToolContext context, String localPath, String dirName,
                                                   String remotePath, boolean overwrite) throws ToolException {
        TransferScope scope = new TransferScope(context.tenant(), context.project());
        Optional<Path> root = roots.find(scope, dirName);
        if (root.isEmpty()) {
            return DirectoryTransferResult.failed(null, ErrorCode.NOT_FOUND, RootDirTargetResolver.notFound(dirName));
        }
        if (!Files.isWritable(root.get())) {
            return DirectoryTransferResult.failed(null, ErrorCode.FORBIDDEN, RootDirTargetResolver.notWritable(dirName));
        }
        try {
            ConfinedRoot.refuseReplacementCharacter(remotePath, "remotePath");
            ConfinedRoot gate = ConfinedRoot.of(root.get());
            gate.requireNoFileOnTheWay(gate.resolve(remotePath), "Cannot create directory "
                    + ConfinedRoot.quote(remotePath));
        } catch (ToolException e) {
            return DirectoryTransferResult.failed(null, e.code(), e.getMessage());
        } catch (IOException e) {
            return DirectoryTransferResult.failed(null, ErrorCode.INTERNAL, "the RootDir cannot be opened: "
                    + e.getClass().getSimpleName());
        }
        TransferConnection conn = connection(context);
        return directory(context, conn, conn.requestDirectoryUploadBridged(scope, localPath, dirName, remotePath,
                overwrite));
    }

    /**
     * Waits for a directory transfer, bridging a lost connection as {@link #resuming} does for a file: the file
     * in flight is resumed on the peer's new connection and the rest follow there; when the peer stays away,
     * the run is given up (what was kept of the file in flight discarded, the remaining files failed).
     */
    private DirectoryTransferResult directory(ToolContext context, TransferConnection conn,
                                              CompletableFuture<DirectoryTransfers.Outcome> started)
            throws ToolException {
        return resuming(context, conn, started, DirectoryTransfers.Outcome::interrupted,
                TransferConnection::resumeDirectory, (c, o) -> c.giveUpDirectory(o.interrupted())).result();
    }

    /**
     * Copies a RootDir directory tree to the client ({@code client_dir_download}): it is listed here (links
     * not followed, every file hashed), and the client checks the manifest entry by entry. A lost connection
     * is bridged as for {@link #uploadDirectory}; when the client does not come back, it is told to discard what
     * it kept of the file in flight on its next connection.
     *
     * @param context the calling process
     * @param dirName the RootDir
     * @param remotePath the directory in the RootDir ({@code "."} for all of it)
     * @param localPath where to put it on the client
     * @param overwrite whether existing files on the client may be replaced
     * @return every entry's outcome
     * @throws ToolException {@code offline} when no client is connected, {@code cancelled} when interrupted
     */
    public DirectoryTransferResult downloadDirectory(ToolContext context, String dirName, String remotePath,
                                                     String localPath, boolean overwrite) throws ToolException {
        TransferScope scope = new TransferScope(context.tenant(), context.project());
        Optional<Path> root = roots.find(scope, dirName);
        if (root.isEmpty()) {
            return DirectoryTransferResult.failed(null, ErrorCode.NOT_FOUND, RootDirTargetResolver.notFound(dirName));
        }
        TransferConnection conn = connection(context);
        return directory(context, conn, conn.sendDirectoryBridged(root.get(), remotePath, localPath, overwrite));
    }

    /** The gate's refusal of a RootDir path before anything is sent, or null (the transfer itself checks again). */
    private static TransferResult check(Path root, String path, boolean read) {
        try {
            ConfinedRoot gate = ConfinedRoot.of(root);
            if (read) {
                gate.openFile(path).channel().close();
            } else {
                gate.resolveFileToWrite(path, "remotePath", "a file transfer", "transferred");
            }
            return null;
        } catch (ToolException e) {
            return TransferResult.failed(null, e.code(), e.getMessage());
        } catch (IOException e) {
            return TransferResult.failed(null, ErrorCode.INTERNAL, "the RootDir cannot be opened: "
                    + e.getClass().getSimpleName());
        }
    }

    private TransferConnection connection(ToolContext context) throws ToolException {
        Optional<TransferConnection> conn = connections.apply(context);
        if (conn == null || conn.isEmpty()) {
            throw new ToolException(ErrorCode.OFFLINE, "The machine of this process's work target (the session's "
                    + "client, or the daemon it names) is not connected to this server node, so no file can be "
                    + "transferred; nothing was written. Start the client or the daemon and try again, or call "
                    + "work_target_set to choose a connected target. In a fleet of server nodes, a peer connected to "
                    + "another node is reached by the file tools but not by transfers: call this tool on the node it "
                    + "is connected to (work_target_get lists the daemons of the whole fleet).");
        }
        return conn.get();
    }

    private static <T> T await(CompletableFuture<T> future) throws ToolException {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            // the call was cancelled: the transfer ends now, and what arrived of the file under way is deleted
            future.cancel(true);
            throw new ToolException(ErrorCode.CANCELLED, "Cancelled while the transfer ran: the file under way was "
                    + "stopped and what arrived of it deleted (a file already there is unchanged); of a directory, "
                    + "the files that landed before stay and no further file is transferred. Call the tool again to "
                    + "transfer it.");
        } catch (ExecutionException e) {
            throw new ToolException(ErrorCode.INTERNAL, "The transfer failed unexpectedly: " + e.getCause(), e.getCause());
        }
    }

    private static TransferAttrs attrs(Map<String, Object> params) throws ToolException {
        Object v = params.get("attrs");
        if (v == null) {
            return null;
        }
        if (!(v instanceof Map<?, ?> m)) {
            throw Params.invalid("Parameter 'attrs' must be an object with optional 'mode' and 'mtime' strings.");
        }
        for (Object key : m.keySet()) {
            if (!"mode".equals(key) && !"mtime".equals(key)) {
                throw Params.invalid("Parameter 'attrs' accepts only 'mode' and 'mtime', got '" + key + "'.");
            }
        }
        Object mode = m.get("mode");
        Object mtime = m.get("mtime");
        if ((mode != null && !(mode instanceof String)) || (mtime != null && !(mtime instanceof String))) {
            throw Params.invalid("attrs.mode and attrs.mtime must be strings, e.g. {\"mode\":\"0644\","
                    + "\"mtime\":\"2026-05-01T14:23:11Z\"}.");
        }
        TransferAttrs attrs = new TransferAttrs((String) mode, (String) mtime);
        try {
            attrs.modeBits();
            attrs.mtimeInstant();
        } catch (IllegalArgumentException e) {
            throw Params.invalid(e.getMessage() + ".");
        }
        return attrs;
    }
}
