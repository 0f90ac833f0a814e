package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.backend.daemon.internal.NettyFrameChannel;
import org.vancetope.worktarget.core.transfer.FootTargetResolver;
import org.vancetope.worktarget.core.transfer.TransferChunk;
import org.vancetope.worktarget.core.transfer.TransferComplete;
import org.vancetope.worktarget.core.transfer.TransferFrame;
import org.vancetope.worktarget.core.transfer.TransferInitResponse;
import org.vancetope.worktarget.core.transfer.TransferEndpoint;
import org.vancetope.worktarget.core.transfer.TransferScope;
import org.vancetope.worktarget.core.transfer.TransferSide;
import org.vancetope.worktarget.transfer.TransferCodec;

/** The bridge's receive-side back-pressure, on an embedded channel with a worker that runs only when told. */
class TransferBridgeTest {
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final Queue<Runnable> worker = new ArrayDeque<>();
    private TransferEndpoint endpoint;

    @AfterEach
    void close() {
        if (endpoint != null) {
            endpoint.close();
        }
        channel.finishAndReleaseAll();
    }

    private void runWorker(int tasks) {
        for (int i = 0; i < tasks && !worker.isEmpty(); i++) {
            worker.poll().run();
        }
    }

    @Test
    void aChunkWithInvalidBase64FailsItsTransferBehindTheFramesAlreadyQueued(@TempDir Path dir) throws Exception {
        Path foot = Files.createDirectories(dir.resolve("foot"));
        endpoint = TransferEndpoint.builder(TransferSide.FOOT).resolver(FootTargetResolver.at(foot)).build();
        TransferBridge bridge = new TransferBridge(endpoint, c -> new TransferScope("acme", "proj"), worker::add);
        NettyFrameChannel frames = new NettyFrameChannel(channel, "c-1");
        bridge.onFrameUtf8(frames, "transfer_init", utf8("{\"type\":\"transfer_init\",\"transferId\":\"t1\","
                + "\"target\":\"a.bin\",\"totalSize\":8,\"hash\":\"sha256:" + "0".repeat(64) + "\"}"));
        bridge.onFrameUtf8(frames, "transfer_chunk", utf8("{\"type\":\"transfer_chunk\",\"transferId\":\"t1\","
                + "\"seq\":0,\"bytes\":\"AAAAAA==\",\"last\":false}"));
        assertThatThrownBy(() -> bridge.onFrameUtf8(frames, "transfer_chunk", utf8("{\"type\":\"transfer_chunk\","
                + "\"transferId\":\"t1\",\"seq\":1,\"bytes\":\"@@@@\",\"last\":true}")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("base64");
        runWorker(10);
        List<TransferFrame> sent = new ArrayList<>();
        for (TextWebSocketFrame f; (f = channel.readOutbound()) != null; ) {
            try {
                sent.add(TransferCodec.create().decode(f.text()));
            } finally {
                f.release();
            }
        }
        assertThat(sent).hasSize(2);
        assertThat(sent.get(0)).isInstanceOfSatisfying(TransferInitResponse.class, r -> assertThat(r.ok()).isTrue());
        assertThat(sent.get(1)).isInstanceOfSatisfying(TransferComplete.class, c -> {
            assertThat(c.ok()).isFalse();
            assertThat(c.bytesWritten()).isEqualTo(4);
            assertThat(c.error()).contains("chunk 1 could not be decoded", "base64");
        });
        try (Stream<Path> files = Files.walk(foot)) {
            assertThat(files.filter(Files::isRegularFile).toList()).as("no staging file").isEmpty();
        }
    }

    @Test
    void anUndecodableChunkOnAConnectionWithoutTransfersChangesNothing(@TempDir Path dir) throws Exception {
        endpoint = TransferEndpoint.builder(TransferSide.FOOT)
                .resolver(FootTargetResolver.at(Files.createDirectories(dir.resolve("foot")))).build();
        TransferBridge bridge = new TransferBridge(endpoint, c -> new TransferScope("acme", "proj"), worker::add);
        NettyFrameChannel frames = new NettyFrameChannel(channel, "c-1");
        assertThatThrownBy(() -> bridge.onFrameUtf8(frames, "transfer_chunk", utf8("{\"type\":\"transfer_chunk\","
                + "\"transferId\":\"t1\",\"seq\":0,\"bytes\":\"@@@@\",\"last\":true}")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(worker).isEmpty();
        Object out = channel.readOutbound();
        assertThat(out).as("nothing sent").isNull();
    }

    @Test
    void aFrameTheConnectionParsedIsDecodedFromItsFields(@TempDir Path dir) throws Exception {
        endpoint = TransferEndpoint.builder(TransferSide.FOOT)
                .resolver(FootTargetResolver.at(Files.createDirectories(dir.resolve("foot")))).build();
        TransferBridge bridge = new TransferBridge(endpoint, c -> new TransferScope("acme", "proj"), worker::add);
        NettyFrameChannel frames = new NettyFrameChannel(channel, "c-1");
        bridge.onFrameFields(frames, "transfer_init", java.util.Map.of("type", "transfer_init", "transferId", "t1",
                "target", "a.bin", "totalSize", 0, "hash", "sha256:" + "0".repeat(64)), utf8("not parsed again"));
        runWorker(10);
        TextWebSocketFrame f = channel.readOutbound();
        try {
            assertThat(TransferCodec.create().decode(f.text())).isInstanceOfSatisfying(TransferInitResponse.class,
                    r -> assertThat(r.transferId()).isEqualTo("t1"));
        } finally {
            f.release();
        }
    }

    private static ByteBuffer utf8(String json) {
        return ByteBuffer.wrap(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aConnectionStopsReadingWhileItsFramesWaitForTheWorkerAndResumesAsTheyDrain(@TempDir Path dir)
            throws Exception {
        endpoint = TransferEndpoint.builder(TransferSide.FOOT)
                .resolver(FootTargetResolver.at(Files.createDirectories(dir.resolve("foot")))).build();
        TransferBridge bridge = new TransferBridge(endpoint, c -> new TransferScope("acme", "proj"), worker::add);
        NettyFrameChannel frames = new NettyFrameChannel(channel, "c-1");
        byte[] chunk = TransferCodec.create().encode(new TransferChunk("t-unknown", 0, new byte[1024], false));
        for (int i = 0; i < 31; i++) {
            bridge.onFrameUtf8(frames, "transfer_chunk", ByteBuffer.wrap(chunk));
        }
        assertThat(channel.config().isAutoRead()).isTrue();
        bridge.onFrameUtf8(frames, "transfer_chunk", ByteBuffer.wrap(chunk));
        assertThat(channel.config().isAutoRead()).isFalse();
        runWorker(1);           // the lane drains its queue in one task
        assertThat(worker).isEmpty();
        assertThat(channel.config().isAutoRead()).isTrue();
    }
}
