package org.vancetope.worktarget.benchmarks;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The plain Netty WebSocket harnesses that {@link WireTransferBenchmark} measures WorkTarget against:
 * a file moves in 64 KiB chunks, as V1-shaped JSON text frames (standard base64) or as binary frames,
 * the receiver writes it to disk and hashes it with SHA-256, and acks with the hash after the last
 * chunk; at most 8 writes in flight; the sender does not hash before sending. The server end lives in the benchmark's JVM, the
 * peer in a child JVM ({@code WireTransferBenchmark --plain-peer PORT DIR MODE}).
 *
 * <ul>
 *   <li>{@link Mode#DEFAULT}: Netty's default settings (its per-frame UTF-8 validation of text frames
 *       on), frames built as a Jackson tree and a {@code String}, parsed with {@code readTree}, base64
 *       through {@code String}s: what a straightforward implementation does.
 *   <li>{@link Mode#TUNED}: the tuned harness: no per-frame UTF-8 re-validation, the
 *       frame assembled as bytes straight into a pooled buffer; the receiver parses only the frame's
 *       head for the metadata, copies the base64 out of the network buffer once and decodes it with the
 *       JDK's decoder into the chunk's array; disk write and SHA-256 run on a writer thread, so the I/O
 *       thread goes on reading (the same split as WorkTarget's receiver).
 *   <li>{@link Mode#BINARY}: the reference for WorkTarget's {@code transfer.binary}: chunks as binary
 *       frames (a small head, then the file's bytes read straight into a pooled direct buffer), no JSON
 *       and no base64; the receiver hands the frame's buffer without a copy to a writer thread that
 *       hashes and writes it, and stops reading while 32 frames wait for it (again at 8), as
 *       WorkTarget's receiver does; control frames are JSON text as in the other modes.
 *   <li>{@link Mode#BINARY_TRAILER}: as {@code BINARY}, and the sender hashes each chunk as it sends it
 *       and puts the SHA-256 after the last chunk, which the receiver checks against its own: the
 *       reference for {@code transfer.binary} + {@code transfer.hash-trailer}.
 * </ul>
 */
final class PlainWsHarness {
    static final int CHUNK = 64 * 1024;
    static final int MAX_FRAME = 2 * 1024 * 1024;
    private static final int WRITES_IN_FLIGHT = 8;
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** Which harness. */
    enum Mode {
        /** Netty defaults, Jackson trees and strings. */
        DEFAULT,
        /** No UTF-8 re-validation, bytes end to end. */
        TUNED,
        /** Chunks as binary frames (no JSON, no base64); the sender does not hash. */
        BINARY,
        /** As {@link #BINARY}, and the sender hashes while it streams and sends the hash after the last chunk. */
        BINARY_TRAILER
    }

    private PlainWsHarness() {
    }

    // ------------------------------------------------------------------ shared handler logic

    /** The frame handling both ends share; subclasses parse and send frames their way. */
    private abstract static class Handler extends SimpleChannelInboundHandler<WebSocketFrame> {
        final Path dir;
        final Map<String, CompletableFuture<String>> pending = new ConcurrentHashMap<>();
        final ExecutorService senders = Executors.newSingleThreadExecutor();
        final CompletableFuture<Channel> handshake = new CompletableFuture<>();
        final Map<String, Reception> receptions = new ConcurrentHashMap<>();

        Handler(Path dir) {
            this.dir = dir;
        }

        /** Sends a file as chunk frames, at most 8 writes in flight; returns when the last is queued. */
        void sendFile(Channel ch, Path file, String id, String to) throws Exception {
            Window window = new Window();
            try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
                long size = in.size();
                long sent = 0;
                long seq = 0;
                ByteBuffer buf = ByteBuffer.allocate(CHUNK);
                do {
                    int n = readChunk(in, buf, sent, size);
                    sent += n;
                    byte[] raw = n == CHUNK ? buf.array() : Arrays.copyOf(buf.array(), n);
                    window.write(ch, chunkFrame(ch, id, to, seq++, raw, sent == size));
                } while (sent < size);
            }
        }

        /** One chunk frame; {@code raw} is reused after the call. */
        abstract WebSocketFrame chunkFrame(Channel ch, String id, String to, long seq, byte[] raw, boolean last)
                throws IOException;

        @Override
        protected final void channelRead0(ChannelHandlerContext ctx, WebSocketFrame frame) throws Exception {
            if (frame instanceof TextWebSocketFrame text) {
                text(ctx, text);
            } else if (frame instanceof BinaryWebSocketFrame binary) {
                binary(ctx, binary);
            } else {
                throw new IllegalStateException("unexpected frame " + frame);
            }
        }

        /** A text frame: a control frame, or a JSON chunk. */
        abstract void text(ChannelHandlerContext ctx, TextWebSocketFrame frame) throws Exception;

        /** A binary frame: a chunk, in the binary modes. */
        void binary(ChannelHandlerContext ctx, BinaryWebSocketFrame frame) throws Exception {
            throw new IllegalStateException("binary frame in a text-only harness");
        }

        /** Writes a small control frame. */
        void sendControl(Channel ch, String json) {
            ch.writeAndFlush(new TextWebSocketFrame(json));
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt instanceof WebSocketServerProtocolHandler.HandshakeComplete
                    || evt == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_COMPLETE) {
                handshake.complete(ctx.channel());
            }
            super.userEventTriggered(ctx, evt);
        }

        Reception reception(String id, long seq, String path) {
            Reception r = seq == 0 ? receptions.computeIfAbsent(id, k -> new Reception(dir.resolve(path)))
                    : receptions.get(id);
            if (r == null) {
                throw new IllegalStateException("chunk for an unknown transfer " + id);
            }
            return r;
        }

        void received(ChannelHandlerContext ctx, String id, Reception r) throws IOException {
            receptions.remove(id);
            String hash = r.finish();
            ObjectNode ack = MAPPER.createObjectNode().put("type", "ack").put("id", id).put("hash", hash);
            sendControl(ctx.channel(), MAPPER.writeValueAsString(ack));
            complete(id, hash);
        }

        /** A parsed control frame: an ack, or a request to send a file. */
        final void control(ChannelHandlerContext ctx, JsonNode f) {
            String id = f.get("id").asText();
            switch (f.get("type").asText()) {
                case "ack" -> complete(id, f.get("hash").asText());
                case "send" -> sendRequested(ctx, id, f.get("path").asText(), f.get("to").asText());
                default -> throw new IllegalStateException("unknown frame " + f);
            }
        }

        void sendRequested(ChannelHandlerContext ctx, String id, String path, String to) {
            Channel ch = ctx.channel();
            senders.execute(() -> {
                try {
                    sendFile(ch, dir.resolve(path), id, to);
                } catch (Exception e) {
                    System.err.println("plain harness: sending " + id + " failed: " + e);
                    ch.close();
                }
            });
        }

        void complete(String id, String hash) {
            CompletableFuture<String> p = pending.remove(id);
            if (p != null) {
                p.complete(hash);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            failAll(new IOException("connection closed"));
            super.channelInactive(ctx);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            failAll(cause);
            ctx.close();
        }

        private void failAll(Throwable cause) {
            pending.values().forEach(p -> p.completeExceptionally(cause));
            pending.clear();
            receptions.values().forEach(Reception::abort);
            receptions.clear();
        }

        void shutdown() {
            senders.shutdownNow();
        }
    }

    /** One file being received: written and hashed chunk by chunk. */
    private static final class Reception {
        private final FileChannel out;
        private final MessageDigest digest = WireTransferBenchmark.digest();
        private String hash;

        Reception(Path file) {
            try {
                out = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                        StandardOpenOption.WRITE);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }

        /** Hashes and writes a buffer's remaining bytes. */
        void write(ByteBuffer b) throws IOException {
            digest.update(b.duplicate());
            while (b.hasRemaining()) {
                out.write(b);
            }
        }

        /** Closes the file (once) and returns the hash of what was written. */
        String finish() throws IOException {
            if (hash == null) {
                out.close();
                hash = "sha256:" + HexFormat.of().formatHex(digest.digest());
            }
            return hash;
        }

        void abort() {
            try {
                out.close();
            } catch (IOException e) {
                System.err.println("cannot close a reception: " + e);
            }
        }
    }

    /** At most 8 frame writes in flight; the first failed write fails the next {@link #write}. */
    private static final class Window {
        private final Semaphore permits = new Semaphore(WRITES_IN_FLIGHT);
        private final CompletableFuture<Void> failed = new CompletableFuture<>();

        void write(Channel ch, WebSocketFrame frame) throws InterruptedException {
            permits.acquire();
            if (failed.isDone()) {
                frame.release();
                failed.join();
            }
            ch.writeAndFlush(frame).addListener(w -> {
                permits.release();
                if (!w.isSuccess()) {
                    failed.completeExceptionally(w.cause());
                }
            });
        }
    }

    /** Reads the next chunk of a file into {@code buf} (cleared first); returns its length. */
    private static int readChunk(FileChannel in, ByteBuffer buf, long sent, long size) throws IOException {
        buf.clear();
        while (buf.hasRemaining() && sent + buf.position() < size) {
            if (in.read(buf) < 0) {
                break;
            }
        }
        return buf.position();
    }

    // ------------------------------------------------------------------ default

    /** Jackson trees and strings, as a straightforward implementation would do. */
    private static final class DefaultHandler extends Handler {
        DefaultHandler(Path dir) {
            super(dir);
        }

        @Override
        void text(ChannelHandlerContext ctx, TextWebSocketFrame frame) throws Exception {
            JsonNode f = MAPPER.readTree(frame.text());
            String id = f.get("id").asText();
            switch (f.get("type").asText()) {
                case "chunk" -> {
                    Reception r = reception(id, f.get("seq").asLong(), f.path("path").asText());
                    r.write(ByteBuffer.wrap(Base64.getDecoder().decode(f.get("data").asText())));
                    if (f.get("last").asBoolean()) {
                        received(ctx, id, r);
                    }
                }
                default -> control(ctx, f);
            }
        }

        @Override
        TextWebSocketFrame chunkFrame(Channel ch, String id, String to, long seq, byte[] raw, boolean last)
                throws IOException {
            ObjectNode frame = MAPPER.createObjectNode().put("type", "chunk").put("id", id).put("path", to)
                    .put("seq", seq).put("data", Base64.getEncoder().encodeToString(raw)).put("last", last);
            return new TextWebSocketFrame(MAPPER.writeValueAsString(frame));
        }
    }

    // ------------------------------------------------------------------ tuned

    /**
     * Bytes end to end: the metadata parsed from the frame's head (the sender puts {@code data} last),
     * the base64 copied once out of the network buffer and decoded by the JDK's decoder into the
     * chunk's array; disk write and SHA-256 on a writer thread, so the I/O thread goes on reading.
     */
    private static final class TunedHandler extends Handler {
        private static final byte[] HEAD = "{\"type\":\"chunk\",\"id\":\"".getBytes(StandardCharsets.US_ASCII);
        private static final int HEAD_BYTES = 512;
        private final JsonFactory json = new JsonFactory();
        private final byte[] head = new byte[HEAD_BYTES];
        private final ExecutorService writer = Executors.newSingleThreadExecutor();
        private byte[] encoded = new byte[0];
        private final byte[] b64 = new byte[4 * ((CHUNK + 2) / 3)];     // the sender's, one transfer at a time

        TunedHandler(Path dir) {
            super(dir);
        }

        @Override
        void text(ChannelHandlerContext ctx, TextWebSocketFrame frame) throws Exception {
            ByteBuf content = frame.content();
            int n = content.readableBytes();
            int h = Math.min(n, HEAD_BYTES);
            content.getBytes(content.readerIndex(), head, 0, h);
            String type = null;
            String id = null;
            String path = null;
            String hash = null;
            String to = null;
            long seq = -1;
            boolean last = false;
            int dataAt = -1;
            try (JsonParser p = json.createParser(head, 0, h)) {
                p.nextToken();
                while (dataAt < 0 && p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    p.nextToken();
                    switch (name) {
                        case "type" -> type = p.getText();
                        case "id" -> id = p.getText();
                        case "path" -> path = p.getText();
                        case "seq" -> seq = p.getLongValue();
                        case "last" -> last = p.getBooleanValue();
                        case "hash" -> hash = p.getText();
                        case "to" -> to = p.getText();
                        case "data" -> dataAt = (int) p.currentTokenLocation().getByteOffset() + 1;
                        default -> p.skipChildren();
                    }
                }
            }
            switch (String.valueOf(type)) {
                case "chunk" -> {
                    Reception r = reception(id, seq, path);
                    int length = n - 2 - dataAt;        // the frame ends with "}
                    if (encoded.length != length) {
                        encoded = new byte[length];
                    }
                    content.getBytes(content.readerIndex() + dataAt, encoded, 0, length);
                    byte[] bytes = new byte[CHUNK];
                    int count = Base64.getDecoder().decode(encoded, bytes);
                    boolean lastChunk = last;
                    String transfer = id;
                    writer.execute(() -> {
                        try {
                            r.write(ByteBuffer.wrap(bytes, 0, count));
                            if (lastChunk) {
                                received(ctx, transfer, r);
                            }
                        } catch (IOException e) {
                            ctx.fireExceptionCaught(e);
                        }
                    });
                }
                case "ack" -> complete(id, hash);
                case "send" -> sendRequested(ctx, id, path, to);
                default -> throw new IllegalStateException("unknown frame type " + type);
            }
        }

        @Override
        void shutdown() {
            super.shutdown();
            writer.shutdownNow();
        }

        @Override
        TextWebSocketFrame chunkFrame(Channel ch, String id, String to, long seq, byte[] raw, boolean last) {
            int m = Base64.getEncoder().encode(raw, b64);
            byte[] meta = (id + "\",\"path\":\"" + to + "\",\"seq\":" + seq + ",\"last\":" + last + ",\"data\":\"")
                    .getBytes(StandardCharsets.UTF_8);
            ByteBuf frame = ch.alloc().buffer(HEAD.length + meta.length + m + 2);
            frame.writeBytes(HEAD).writeBytes(meta).writeBytes(b64, 0, m).writeByte('"').writeByte('}');
            return new TextWebSocketFrame(frame);
        }
    }

    // ------------------------------------------------------------------ binary

    /**
     * Chunks as binary frames: a head (sequence number, flags, transfer id, path, and after the last
     * chunk in {@link Mode#BINARY_TRAILER} the sender's SHA-256 of the file) and the file's bytes, read
     * from the file straight into a pooled buffer. The receiver hands the frame's buffer itself (no
     * copy) to a writer thread that hashes and writes it; control frames are the JSON text frames of the
     * other modes.
     */
    private static final class BinaryHandler extends Handler {
        private static final int LAST = 1;
        private static final int TRAILER = 2;
        private static final int HASH_BYTES = 32;
        /** The receiver stops reading while this many frames wait for the writer, as WorkTarget's does... */
        private static final int PAUSE_AT = 32;
        /** ...and reads again at this many. */
        private static final int RESUME_AT = 8;
        private final AtomicInteger queued = new AtomicInteger();
        private final boolean trailer;
        private final ExecutorService writer = Executors.newSingleThreadExecutor();

        BinaryHandler(Path dir, boolean trailer) {
            super(dir);
            this.trailer = trailer;
        }

        @Override
        void sendFile(Channel ch, Path file, String id, String to) throws Exception {
            Window window = new Window();
            byte[] idBytes = id.getBytes(StandardCharsets.UTF_8);
            byte[] toBytes = to.getBytes(StandardCharsets.UTF_8);
            MessageDigest digest = trailer ? WireTransferBenchmark.digest() : null;
            try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
                long size = in.size();
                long sent = 0;
                long seq = 0;
                do {
                    int n = (int) Math.min(CHUNK, size - sent);
                    boolean last = sent + n == size;
                    int headBytes = 8 + 1 + 1 + idBytes.length + 2 + toBytes.length;
                    ByteBuf frame = ch.alloc().directBuffer(headBytes + n + HASH_BYTES);
                    frame.writeLong(seq++).writeByte(0).writeByte(idBytes.length).writeBytes(idBytes)
                            .writeShort(toBytes.length).writeBytes(toBytes);
                    int dataAt = frame.writerIndex();
                    while (frame.writerIndex() - dataAt < n) {
                        int got = frame.writeBytes(in, sent + frame.writerIndex() - dataAt,
                                n - (frame.writerIndex() - dataAt));
                        if (got < 0) {
                            frame.release();
                            throw new IOException(file + " shrank while it was sent");
                        }
                    }
                    int flags = last ? LAST : 0;
                    if (digest != null) {
                        digest.update(frame.nioBuffer(dataAt, n));
                        if (last) {
                            flags |= TRAILER;
                            frame.writeBytes(digest.digest());
                        }
                    }
                    frame.setByte(8, flags);
                    sent += n;
                    window.write(ch, new BinaryWebSocketFrame(frame));
                } while (sent < size);
            }
        }

        @Override
        WebSocketFrame chunkFrame(Channel ch, String id, String to, long seq, byte[] raw, boolean last) {
            throw new UnsupportedOperationException("the binary harness builds its frames in sendFile");
        }

        @Override
        void binary(ChannelHandlerContext ctx, BinaryWebSocketFrame frame) {
            ByteBuf content = frame.content();
            long seq = content.readLong();
            int flags = content.readByte();
            String id = content.readCharSequence(content.readUnsignedByte(), StandardCharsets.UTF_8).toString();
            String path = content.readCharSequence(content.readUnsignedShort(), StandardCharsets.UTF_8).toString();
            byte[] expected = null;
            if ((flags & TRAILER) != 0) {
                expected = new byte[HASH_BYTES];
                content.getBytes(content.writerIndex() - HASH_BYTES, expected);
                content.writerIndex(content.writerIndex() - HASH_BYTES);
            }
            Reception r = reception(id, seq, path);
            ByteBuf data = content.retain();
            byte[] trailerHash = expected;
            if (queued.incrementAndGet() >= PAUSE_AT) {
                ctx.channel().config().setAutoRead(false);
            }
            writer.execute(() -> {
                try {
                    r.write(data.nioBuffer());
                    if ((flags & LAST) != 0) {
                        String hash = r.finish();
                        if (trailerHash != null && !hash.equals("sha256:" + HexFormat.of().formatHex(trailerHash))) {
                            throw new IOException("transfer " + id + ": the trailer's hash is not the received file's");
                        }
                        received(ctx, id, r);
                    }
                } catch (IOException e) {
                    ctx.fireExceptionCaught(e);
                } finally {
                    data.release();
                    if (queued.decrementAndGet() <= RESUME_AT) {
                        ctx.channel().eventLoop().execute(() -> {
                            if (queued.get() <= RESUME_AT && !ctx.channel().config().isAutoRead()) {
                                ctx.channel().config().setAutoRead(true);
                            }
                        });
                    }
                }
            });
        }

        @Override
        void text(ChannelHandlerContext ctx, TextWebSocketFrame frame) throws Exception {
            control(ctx, MAPPER.readTree(frame.text()));
        }

        @Override
        void shutdown() {
            super.shutdown();
            writer.shutdownNow();
        }
    }

    private static Handler handler(Mode mode, Path dir) {
        return switch (mode) {
            case DEFAULT -> new DefaultHandler(dir);
            case TUNED -> new TunedHandler(dir);
            case BINARY -> new BinaryHandler(dir, false);
            case BINARY_TRAILER -> new BinaryHandler(dir, true);
        };
    }

    // ------------------------------------------------------------------ the two ends

    /** The server end, in the benchmark's JVM: the Brain's counterpart. */
    static final class Server implements AutoCloseable {
        private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        private final Handler handler;
        private final Channel listener;
        private final AtomicLong ids = new AtomicLong();

        Server(Path dir, Mode mode) throws InterruptedException {
            this.handler = handler(mode, dir);
            WebSocketServerProtocolConfig ws = WebSocketServerProtocolConfig.newBuilder().websocketPath("/plain")
                    .maxFramePayloadLength(MAX_FRAME).withUTF8Validator(mode == Mode.DEFAULT).build();
            listener = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(65536),
                                    new WebSocketServerProtocolHandler(ws), handler);
                        }
                    }).bind("127.0.0.1", 0).sync().channel();
        }

        int port() {
            return ((InetSocketAddress) listener.localAddress()).getPort();
        }

        Channel awaitPeer(Process peer) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!handler.handshake.isDone()) {
                if (!peer.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("the plain peer did not connect (exit " + (peer.isAlive() ? "-"
                            : peer.exitValue()) + ")");
                }
                Thread.sleep(20);
            }
            return handler.handshake.get();
        }

        /** Sends {@code name} to the peer; returns the hash the peer acked. */
        String download(Channel peer, String name, String to) throws Exception {
            String id = "d" + ids.incrementAndGet();
            CompletableFuture<String> acked = new CompletableFuture<>();
            handler.pending.put(id, acked);
            handler.sendFile(peer, handler.dir.resolve(name), id, to);
            return acked.get(10, TimeUnit.MINUTES);
        }

        /** Asks the peer to send {@code name}; returns the hash of what arrived here. */
        String upload(Channel peer, String name, String to) throws Exception {
            String id = "u" + ids.incrementAndGet();
            CompletableFuture<String> received = new CompletableFuture<>();
            handler.pending.put(id, received);
            ObjectNode req = MAPPER.createObjectNode().put("type", "send").put("id", id).put("path", name).put("to", to);
            handler.sendControl(peer, MAPPER.writeValueAsString(req));
            return received.get(10, TimeUnit.MINUTES);
        }

        @Override
        public void close() {
            listener.close().syncUninterruptibly();
            handler.shutdown();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /**
     * The peer end, run in a child JVM until the connection closes: the daemon's counterpart.
     *
     * @param port the server's port
     * @param dir where files are read and written
     * @param mode the harness
     * @throws Exception on failure
     */
    static void runPeer(int port, Path dir, Mode mode) throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        Handler handler = handler(mode, dir);
        try {
            WebSocketClientProtocolConfig ws = WebSocketClientProtocolConfig.newBuilder()
                    .webSocketUri(URI.create("ws://127.0.0.1:" + port + "/plain"))
                    .maxFramePayloadLength(MAX_FRAME).withUTF8Validator(mode == Mode.DEFAULT).build();
            Channel ch = new Bootstrap().group(group).channel(NioSocketChannel.class)
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel c) {
                            c.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(65536),
                                    new WebSocketClientProtocolHandler(ws), handler);
                        }
                    }).connect("127.0.0.1", port).sync().channel();
            handler.handshake.get(30, TimeUnit.SECONDS);
            ch.closeFuture().sync();
        } finally {
            handler.shutdown();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
