package org.vancetope.worktarget.core.transfer;

import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.vancetope.worktarget.core.internal.transfer.DirectoryTransfers;
import org.vancetope.worktarget.core.internal.transfer.TransferEngine;
import org.vancetope.worktarget.spi.FrameChannel;

/**
 * One channel attached to a {@link TransferEndpoint}: the transport feeds it inbound frames and its
 * close; callers start transfers on it.
 *
 * <pre>{@code
 * TransferConnection conn = brain.attach(channel, scope);
 * TransferResult down = conn.send(rootDir, "q2.pdf", "reports/q2.pdf", null, null).join();   // Brain -> Foot
 * TransferResult up = conn.requestUpload(scope, "sounds/a.wav", "uploads", "a.wav", null).join(); // Foot -> Brain
 * }</pre>
 *
 * <p>It does not decode frames. Every path it is given is confined by the library's gate: the source of
 * {@link #send} to the given root, received files to the root its endpoint's resolver names.
 */
public final class TransferConnection {
    private final TransferEngine engine;
    private final FrameChannel<TransferFrame> channel;
    private final TransferScope scope;
    private final Set<TransferCapability> capabilities;

    TransferConnection(TransferEngine engine, FrameChannel<TransferFrame> channel, TransferScope scope,
                       Set<TransferCapability> capabilities) {
        this.engine = engine;
        this.channel = channel;
        this.scope = scope;
        this.capabilities = Set.copyOf(capabilities);
    }

    /**
     * The transfer capabilities both ends of the connection listed; transfers on it use exactly these.
     *
     * @return the capabilities, empty for the base protocol
     */
    public Set<TransferCapability> capabilities() {
        return capabilities;
    }

    /**
     * The channel.
     *
     * @return the channel
     */
    public FrameChannel<TransferFrame> channel() {
        return channel;
    }

    /**
     * The connection's tenant and project.
     *
     * @return the scope
     */
    public TransferScope scope() {
        return scope;
    }

    /**
     * Handles one inbound frame. Never throws: frames for unknown transfers, frames from the wrong
     * channel and frames a transfer's state does not expect are dropped and logged. May block on
     * disk I/O (chunk writes, hashing).
     *
     * @param frame the decoded frame
     */
    public void onFrame(TransferFrame frame) {
        engine.onFrame(channel, scope, capabilities, frame);
    }

    /**
     * A transfer frame naming a transfer arrived but could not be decoded (a chunk's bytes are not valid
     * base64, a field is missing or mistyped): what waits for that frame on this channel fails at once
     * instead of at its timeout.
     * <ul>
     *   <li>{@code transfer_chunk}: the receiving transfer of that id fails as for a chunk out of order
     *       ({@code transfer_complete {ok:false}} to the sender, staging deleted);</li>
     *   <li>{@code transfer_init} or {@code transfer_resume}: the upload this side asked for fails
     *       ({@code bad_frame}, {@code transfer_init_response {ok:false}} to the sender); on a client, which
     *       receives downloads without asking, an unknown id is refused to its sender the same way;</li>
     *   <li>{@code transfer_dir_manifest}: the directory upload this side asked for fails, nothing
     *       written.</li>
     * </ul>
     * An unknown id, a transfer of another channel, one not waiting for that frame, and any other type
     * are left alone. Never throws.
     *
     * <pre>{@code
     * try {
     *     frame = codec.decode(text);
     * } catch (FrameDecodeException e) {
     *     if (e.frameType().isPresent() && e.transferId().isPresent()) {
     *         conn.onUndecodable(e.transferId().get(), e.frameType().get(), e.getMessage());
     *     }
     * }
     * }</pre>
     *
     * @param transferId the transfer the frame named
     * @param type the frame's type
     * @param problem why it could not be decoded, for the sender's error
     */
    public void onUndecodable(String transferId, String type, String problem) {
        engine.onUndecodable(channel, transferId, type, problem);
    }

    /** The channel closed: every transfer on it is aborted at once (staging deleted, results failed). */
    public void onClose() {
        engine.onClose(channel);
    }

    /**
     * Sends a file: opens it through the confinement gate of {@code root} (the same rules as
     * {@code file_read}), hashes it from that open file on the calling thread, announces it with
     * {@code transfer_init} and streams it from the same open file once the receiver accepts. With
     * {@link TransferCapability#HASH_TRAILER} it is not hashed beforehand but while it streams.
     *
     * @param root the directory {@code source} is relative to and confined to
     * @param source the file, relative to {@code root}
     * @param target the path relative to the receiver's root
     * @param dirName the Brain RootDir when the Brain receives, else null
     * @param attrs overrides of the file's own mode and mtime, or null
     * @return completes with the outcome (never exceptionally) once {@code transfer_finish} is sent; a
     *         refused source is a failed result with the gate's message
     */
    public CompletableFuture<TransferResult> send(Path root, String source, String target, String dirName,
                                                  TransferAttrs attrs) {
        return engine.startSend(channel, capabilities, null, root, source, target, dirName, attrs, false, false);
    }

    /**
     * Takes up a transfer that a lost connection interrupted ({@link TransferCapability#RESUME}): the
     * same file as the interrupted {@link #send}, on this (new) connection. Asks the receiver for the
     * offset it kept with {@code transfer_resume} and sends the rest from there; the receiver verifies
     * the whole file's hash before it commits it, as always.
     *
     * <pre>{@code
     * TransferResult r = conn.send(root, "q2.pdf", "reports/q2.pdf", null, null).join();
     * if (r.resumeId() != null) {       // the connection was lost; later, on the peer's new connection:
     *     r = newConn.resume(r.resumeId(), root, "q2.pdf", "reports/q2.pdf", null, null).join();
     * }
     * }</pre>
     *
     * @param resumeId the {@link TransferResult#resumeId()} of the interrupted transfer
     * @param root the directory {@code source} is relative to and confined to
     * @param source the file, relative to {@code root}, as first sent
     * @param target the path relative to the receiver's root, as first sent
     * @param dirName the Brain RootDir when the Brain receives, else null
     * @param attrs overrides of the file's own mode and mtime, or null (the receiver keeps the first ones)
     * @return completes with the outcome (never exceptionally); a failed one when the receiver kept nothing
     *         of it (it expired, or the source changed), or when this connection did not negotiate the
     *         capability
     */
    public CompletableFuture<TransferResult> resume(String resumeId, Path root, String source, String target,
                                                    String dirName, TransferAttrs attrs) {
        java.util.Objects.requireNonNull(resumeId, "resumeId");
        return engine.startSend(channel, capabilities, resumeId, root, source, target, dirName, attrs, false, true);
    }

    /**
     * Completes the next time the endpoint of this connection attaches a channel, for example when the
     * peer of a lost connection comes back: a caller waiting to resume looks for the peer's connection
     * again then.
     *
     * @return the signal (also completed when the endpoint closes)
     */
    public CompletableFuture<Void> nextAttach() {
        return engine.nextAttach();
    }

    /**
     * How long a call waits for the peer of a lost resumable transfer to come back before it fails with a
     * {@link TransferResult#resumeId()}: the endpoint's {@link TransferSettings#reconnectWait()}.
     *
     * @return the wait
     */
    public java.time.Duration reconnectWait() {
        return engine.reconnectWait();
    }

    /**
     * Sends a directory tree ({@link TransferCapability#DIRECTORY}): lists {@code source} below {@code root}
     * without following links (every file hashed), sends the manifest, and once the receiver checked it
     * entry by entry, sends each accepted file as an ordinary transfer, one after the other.
     *
     * @param root the directory {@code source} is relative to and confined to
     * @param source the directory to send, relative to {@code root} ({@code "."} for the root itself)
     * @param target the directory relative to the receiver's root
     * @param overwrite whether existing files on the receiver may be replaced (otherwise they are refused
     *                  with {@code exists})
     * @return completes with every entry's outcome (never exceptionally); a connection without the
     *         capability fails at once with {@code invalid_params}
     */
    public CompletableFuture<DirectoryTransferResult> sendDirectory(Path root, String source, String target,
                                                                    boolean overwrite) {
        return engine.directories().send(channel, capabilities, root, source, target, overwrite);
    }

    /**
     * Asks the client for one of its directory trees (Brain side, {@link TransferCapability#DIRECTORY}):
     * the client answers with its manifest, this side checks it entry by entry and asks for each accepted
     * file as an ordinary upload, one after the other.
     *
     * @param uploadScope the tenant and project whose RootDir {@code dirName} is
     * @param localPath the directory on the client, relative to its workspace
     * @param dirName the RootDir to write into
     * @param remotePath the directory relative to the RootDir ({@code "."} for the RootDir itself)
     * @param overwrite whether existing files in the RootDir may be replaced (otherwise refused with
     *                  {@code exists})
     * @return completes with every entry's outcome (never exceptionally)
     */
    public CompletableFuture<DirectoryTransferResult> requestDirectoryUpload(TransferScope uploadScope, String localPath,
                                                                             String dirName, String remotePath,
                                                                             boolean overwrite) {
        return engine.directories().requestUpload(channel, capabilities, uploadScope, localPath, dirName, remotePath,
                overwrite);
    }

    /**
     * {@link #sendDirectory} for a caller that bridges a lost connection ({@link FileTransferTools}): the
     * outcome is an interruption when the connection is lost while the files are sent and the receiver may
     * keep the file in flight ({@link TransferCapability#RESUME}).
     */
    CompletableFuture<DirectoryTransfers.Outcome> sendDirectoryBridged(Path root, String source, String target,
                                                                      boolean overwrite) {
        return engine.directories().send(channel, capabilities, scope, root, source, target, overwrite, true);
    }

    /** {@link #requestDirectoryUpload} for a caller that bridges a lost connection, as {@link #sendDirectoryBridged}. */
    CompletableFuture<DirectoryTransfers.Outcome> requestDirectoryUploadBridged(TransferScope uploadScope,
                                                                               String localPath, String dirName,
                                                                               String remotePath, boolean overwrite) {
        return engine.directories().requestUpload(channel, capabilities, uploadScope, localPath, dirName, remotePath,
                overwrite, true);
    }

    /** Takes up an interrupted directory transfer on this (new) connection of its peer. */
    CompletableFuture<DirectoryTransfers.Outcome> resumeDirectory(String runId) {
        return engine.directories().resume(runId, channel, capabilities);
    }

    /** Gives up an interrupted directory transfer: its peer did not come back. */
    CompletableFuture<DirectoryTransfers.Outcome> giveUpDirectory(String runId) {
        return engine.directories().giveUp(runId).thenApply(r -> new DirectoryTransfers.Outcome(r, null));
    }

    /**
     * Asks the client to upload one of its files (Brain side): sends
     * {@code client.file.upload.request} and receives the file into {@code dirName}.
     *
     * @param uploadScope the tenant and project whose RootDir {@code dirName} is
     * @param localPath the file on the client, relative to its workspace
     * @param dirName the RootDir to write into
     * @param remotePath the path relative to the RootDir
     * @param attrs overrides of mode and mtime, or null
     * @return completes with the outcome (never exceptionally) once {@code transfer_finish} arrived,
     *         a timeout ended the transfer, or the receiver failed it (a refused {@code transfer_init}, a
     *         bad chunk, a hash mismatch: then at once, without waiting for {@code transfer_finish})
     */
    public CompletableFuture<TransferResult> requestUpload(TransferScope uploadScope, String localPath, String dirName,
                                                           String remotePath, TransferAttrs attrs) {
        return engine.requestUpload(channel, uploadScope, localPath, dirName, remotePath, attrs);
    }

    /**
     * Asks the client, on this (new) connection, to resume an upload that a lost connection interrupted
     * (Brain side, {@link TransferCapability#RESUME}): the Brain kept what arrived, the client is asked with
     * {@code client.file.upload.request {resume:true}}, answers with {@code transfer_resume} and sends the
     * rest from the Brain's offset; the whole file's hash is verified before the commit, as always. After a
     * restart of the Brain the kept prefix is read again from its staging file; an upload verified before the
     * cut completes at once.
     *
     * <pre>{@code
     * TransferResult r = conn.requestUpload(scope, "a.wav", "uploads", "a.wav", null).join();
     * if (r.resumeId() != null) {       // the connection was lost; later, on the client's new connection:
     *     r = newConn.resumeUpload(r.resumeId(), scope, "a.wav", "uploads", "a.wav", null).join();
     * }
     * }</pre>
     *
     * @param resumeId the {@link TransferResult#resumeId()} of the interrupted upload
     * @param uploadScope the tenant and project whose RootDir {@code dirName} is
     * @param localPath the file on the client, as first requested
     * @param dirName the RootDir, as first requested
     * @param remotePath the path relative to the RootDir, as first requested
     * @param attrs overrides of mode and mtime, or null (the Brain keeps the first ones)
     * @return completes with the outcome (never exceptionally); a failed one when nothing is kept of it (it
     *         expired, failed, or names another file) or this connection did not negotiate the capability
     */
    public CompletableFuture<TransferResult> resumeUpload(String resumeId, TransferScope uploadScope, String localPath,
                                                          String dirName, String remotePath, TransferAttrs attrs) {
        java.util.Objects.requireNonNull(resumeId, "resumeId");
        return engine.requestUploadResume(channel, capabilities, uploadScope, resumeId, localPath, dirName, remotePath,
                attrs);
    }
}
