package org.vancetope.worktarget.backend.daemon;

import org.vancetope.worktarget.core.transfer.TransferCapability;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.backend.daemon.internal.ForwardingChannel;
import org.vancetope.worktarget.backend.daemon.internal.ReadGate;
import org.vancetope.worktarget.backend.daemon.internal.SerialExecutor;
import org.vancetope.worktarget.core.transfer.PeerLimits;
import org.vancetope.worktarget.core.transfer.TransferChunk;
import org.vancetope.worktarget.core.transfer.TransferConnection;
import org.vancetope.worktarget.core.transfer.TransferEndpoint;
import org.vancetope.worktarget.core.transfer.TransferFrame;
import org.vancetope.worktarget.core.transfer.TransferScope;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.core.transfer.TransferSide;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.FrameChannel;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.transfer.FrameDecodeException;
import org.vancetope.worktarget.transfer.TransferCodec;

/**
 * Carries file transfers over WebSocket connections: a {@link FrameExtension} that
 * decodes the transfer frames of a connection with the JSON codec and feeds them, in order, to a
 * {@link TransferEndpoint}, and that aborts every transfer of a connection the moment it closes.
 * The same class serves the server (Brain) and the client connector (Foot, daemon).
 *
 * <pre>{@code
 * TransferEndpoint brain = TransferEndpoint.builder(TransferSide.BRAIN).resolver(roots).build();
 * TransferBridge transfers = new TransferBridge(brain, channel -> new TransferScope("acme", "proj"), ioPool);
 * WorkTargetServer server = WorkTargetServer.builder().frameExtension(transfers)...build().start();
 * TransferConnection conn = transfers.connection(server.peers().find(key).flatMap(Endpoint::transferChannel)
 *         .orElseThrow()).orElseThrow();
 * }</pre>
 *
 * <p>Frames are handled off the I/O thread, on a worker pool, one connection at a time in arrival
 * order (disk writes and hashing may block). While 32 frames of a connection wait for the pool, the
 * connection stops reading until 8 are left, so a receiver whose disk is slower than the network
 * holds about 2 MiB per connection instead of the whole file. A frame that cannot be decoded is dropped and counted as
 * a protocol error of the connection; when it is a chunk that names its transfer (bad base64, a broken field), that
 * transfer fails at once instead of waiting for its chunk timeout. It owns neither the endpoint nor the worker pool: close them
 * yourself ({@link ServerTransfers} and {@link ClientTransfers} do).
 */
public final class TransferBridge implements FrameExtension, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TransferBridge.class);
    private static final Set<String> TYPES = Set.of("transfer_init", "transfer_init_response", "transfer_chunk",
            "transfer_complete", "transfer_finish", "client.file.upload.request", "transfer_resume",
            "transfer_resume_response", "transfer_dir_manifest", "transfer_dir_manifest_response",
            "client.dir.upload.request");

    private final TransferEndpoint endpoint;
    private final Function<FrameChannel<String>, TransferScope> scopes;
    private final TransferCodec codec = TransferCodec.create();
    private final Executor workers;
    private final Map<String, Attached> attached = new ConcurrentHashMap<>();

    /** Frames of one connection that may wait for its lane before the connection stops reading. */
    private static final int MAX_WAITING_FRAMES = 32;
    /** The {@code welcome.limits} key of the most raw bytes per chunk the server accepts. */
    static final String LIMIT_MAX_CHUNK_BYTES = "maxChunkBytes";
    private static final int RESUME_AT_FRAMES = 8;

    private record Attached(TransferConnection connection, SerialExecutor lane, ReadGate gate) {
    }

    /**
     * Creates a bridge.
     *
     * @param endpoint the endpoint that runs the transfers
     * @param scopes the tenant and project of a connection (on a client, where received files land; on the server, the default)
     * @param workers where frames are handled, one connection at a time; it may block on disk I/O, so not
     *                an event loop. The bridge does not shut it down.
     */
    public TransferBridge(TransferEndpoint endpoint, Function<FrameChannel<String>, TransferScope> scopes,
                          Executor workers) {
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        this.scopes = Objects.requireNonNull(scopes, "scopes");
        this.workers = Objects.requireNonNull(workers, "workers");
    }

    @Override
    public boolean handles(String type) {
        return TYPES.contains(type);
    }

    /** The endpoint's {@link TransferSettings#capabilities()}: a connection uses those both ends list. */
    @Override
    public Set<String> capabilities() {
        Set<String> names = new java.util.LinkedHashSet<>();
        for (TransferCapability c : endpoint.settings().capabilities()) {
            names.add(c.wire());
        }
        return names;
    }

    @Override
    public void onFrame(WireChannel channel, String type, String frame) {
        onFrameUtf8(channel, type, ByteBuffer.wrap(frame.getBytes(StandardCharsets.UTF_8)));
    }

    /** The connections' path: chunk frames are cut apart from the bytes, base64 decoded straight into the chunk. */
    @Override
    public void onFrameUtf8(WireChannel channel, String type, ByteBuffer utf8) {
        handle(channel, type, () -> codec.decode(utf8));
    }

    /** A chunk in a binary frame ({@code transfer.binary}): its header read, its payload copied out. */
    @Override
    public void onBinaryFrame(WireChannel channel, ByteBuffer frame) {
        handle(channel, TransferChunk.TYPE, () -> codec.decodeBinaryChunk(frame));
    }

    /** A frame the connection parsed already: decoded from its fields, not parsed again. */
    @Override
    public void onFrameFields(WireChannel channel, String type, Map<String, Object> fields, ByteBuffer utf8) {
        handle(channel, type, () -> codec.decode(fields));
    }

    private interface Decoding {
        TransferFrame decode() throws FrameDecodeException;
    }

    private void handle(WireChannel channel, String type, Decoding decoding) {
        TransferFrame decoded;
        try {
            decoded = decoding.decode();
        } catch (FrameDecodeException e) {
            String id = e.transferId().orElse(null);
            Attached a = attached.get(channel.id());
            if (a != null && id != null) {
                // what waits for the frame fails now (a chunk's bytes are lost), behind the frames already queued
                String problem = e.getMessage();
                String frameType = e.frameType().orElse(type);
                deliver(a, () -> a.connection.onUndecodable(id, frameType, problem));
            }
            throw new IllegalArgumentException("undecodable " + type + " frame: " + e.getMessage(), e);
        }
        Attached a = attach(channel);
        deliver(a, () -> a.connection.onFrame(decoded));
    }

    private static void deliver(Attached a, Runnable handling) {
        a.gate.queued();
        a.lane.execute(() -> {
            try {
                handling.run();
            } finally {
                a.gate.done();
            }
        });
    }

    /** The connection is open: its transfer connection exists from now on, for frames and for {@link #connection}. */
    @Override
    public void onOpen(WireChannel channel) {
        attach(channel);
    }

    @Override
    public void onClose(WireChannel channel) {
        Attached a = attached.remove(channel.id());
        if (a != null) {
            a.lane.execute(a.connection::onClose);
        }
    }

    /**
     * The transfer connection of a WebSocket connection, to start a download or request an upload on it.
     *
     * @param channel the connection, e.g. a peer's {@code Endpoint.transferChannel()} from {@link WorkTargetServer#peers()}
     * @return the transfer connection; empty when the channel is closed, or is no connection of a server
     *         or client this bridge is the frame extension of
     */
    public Optional<TransferConnection> connection(FrameChannel<String> channel) {
        if (!channel.isOpen()) {
            return Optional.empty();
        }
        return Optional.ofNullable(attached.get(channel.id())).map(Attached::connection);
    }

    private Attached attach(WireChannel channel) {
        boolean binary = channel.capabilities().contains(TransferCapability.BINARY.wire());
        return attached.computeIfAbsent(channel.id(), id -> new Attached(
                endpoint.attach(new Encoding(channel, codec, binary), scopes.apply(channel),
                        transferCapabilities(channel), peerLimits(channel, binary)),
                new SerialExecutor(workers), new ReadGate(channel, MAX_WAITING_FRAMES, RESUME_AT_FRAMES)));
    }

    /**
     * What the peer announced (the server's {@code welcome.limits}, a client's {@code hello.limits}), as far
     * as it bounds what this end sends: chunks fit the connection's frame limit and the peer's
     * {@code maxChunkBytes}, and files its receive limit ({@code maxUploadSize} of a server). A limit the
     * peer did not announce leaves this end's own setting alone.
     */
    private PeerLimits peerLimits(WireChannel channel, boolean binary) {
        Map<String, Object> announced = channel.peerLimits();
        int chunk = TransferCodec.maxChunkBytes(channel.maxFrameBytes(), binary);
        if (announced.get(LIMIT_MAX_CHUNK_BYTES) instanceof Number n && n.longValue() > 0) {
            chunk = (int) Math.min(chunk, n.longValue());
        }
        TransferSide side = endpoint.side();
        String fileKey = side.sendLimitName();       // the peer's receive limit has the name of this end's send limit
        if (announced.get(fileKey) instanceof Number n && n.longValue() >= 0) {
            return new PeerLimits(chunk, n.longValue(),
                    (side == TransferSide.FOOT ? "the server's " : "the client's ") + fileKey);
        }
        return new PeerLimits(chunk, Long.MAX_VALUE, null);
    }

    private static Set<TransferCapability> transferCapabilities(WireChannel channel) {
        Set<TransferCapability> caps = java.util.EnumSet.noneOf(TransferCapability.class);
        for (String name : channel.capabilities()) {
            TransferCapability.fromWire(name).ifPresent(caps::add);
        }
        return caps;
    }

    /**
     * Aborts the transfers of every attached connection.
     */
    @Override
    public void close() {
        for (String id : Set.copyOf(attached.keySet())) {
            Attached a = attached.remove(id);
            if (a != null) {
                try {
                    a.connection.onClose();
                } catch (RuntimeException e) {
                    LOG.warn("Aborting the transfers of connection {} failed", id, e);
                }
            }
        }
    }

    /** A channel of transfer frames over a channel of JSON text frames. */
    private static final class Encoding extends ForwardingChannel<TransferFrame> {
        private final WireChannel text;
        private final TransferCodec codec;
        private final boolean binary;

        Encoding(WireChannel text, TransferCodec codec, boolean binary) {
            super(text);
            this.text = text;
            this.codec = codec;
            this.binary = binary;
        }

        @Override
        public CompletionStage<Void> send(TransferFrame frame) {
            if (binary && frame instanceof TransferChunk chunk) {      // raw bytes behind a small header
                return text.sendBinary(codec.binaryLength(chunk), dst -> codec.encodeBinaryChunk(chunk, dst));
            }
            if (frame instanceof TransferChunk chunk) {     // ~87 KiB: straight into the network buffer
                return text.sendUtf8(codec.encodedLength(chunk), dst -> codec.encodeChunk(chunk, dst));
            }
            byte[] utf8 = codec.encode(frame);
            int limit = text.maxFrameBytes();
            if (utf8.length > limit) {
                // a control frame over the limit would close the connection at the peer, every call with it
                return CompletableFuture.failedFuture(new ToolException(ErrorCode.SIZE_LIMIT, "the " + frame.type()
                        + " frame is " + utf8.length + " bytes, over this connection's frame limit of " + limit
                        + " bytes; nothing was sent"));
            }
            return text.sendUtf8(utf8);
        }
    }
}
