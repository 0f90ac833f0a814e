package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Queue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.backend.daemon.internal.NettyFrameChannel;
import org.vancetope.worktarget.core.transfer.FootTargetResolver;
import org.vancetope.worktarget.core.transfer.TransferChunk;
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
