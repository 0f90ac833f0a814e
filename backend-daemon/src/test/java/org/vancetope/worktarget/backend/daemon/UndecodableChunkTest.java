package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.core.transfer.TargetResolver;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferScope;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.Endpoint;
import org.vancetope.worktarget.spi.FrameChannel;
import org.vancetope.worktarget.testfixtures.Await;

/**
 * A chunk whose base64 is broken, over real loopback connections, fails its transfer at once. A foot
 * written on the JDK's WebSocket answers {@code client_file_upload} with one: the server answers
 * {@code bad_frame}, fails that transfer ({@code transfer_complete {ok:false}}, the partial file
 * deleted) and the upload call returns the failure without waiting for the foot's
 * {@code transfer_finish}, which this foot never sends. A daemon receiving one does the same. The phase
 * timeout is ten minutes, so no timeout can be what ends a transfer.
 */
class UndecodableChunkTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final byte[] CONTENT = "eight b!".getBytes();

    @TempDir
    Path base;

    private final ExecutorService callers = Executors.newCachedThreadPool();
    private TransferServerFixture server;
    private WorkspaceBackend work;
    private ServerTransfers transfers;
    private TestServer t;
    private WorkTargetDispatcher dispatcher;
    private RawClient foot;

    @BeforeEach
    void start() throws Exception {
        server = new TransferServerFixture(base, TransferSettings.defaults().toBuilder().phaseTimeout(Duration.ofMinutes(10)).build(),
                TransferListener.NONE);
        work = server.work;
        transfers = server.transfers;
        t = server.t;
        dispatcher = server.dispatcher;
        foot = RawClient.connect(t.uri(), TestServer.FOOT_TOKEN, "foot");
        foot.send("{\"type\":\"hello\",\"protocolVersion\":1,\"profile\":\"foot\",\"tenant\":\"acme\",\"project\":\"proj\","
                + "\"sessionId\":\"s-1\",\"tools\":[]}");
        assertThat(foot.next()).contains("\"welcome\"");
    }

    /** What a daemon sends back: the transfer frames, recorded by the server's extension. */
    private static final class Recording implements FrameExtension {
        final BlockingQueue<String> frames = new LinkedBlockingQueue<>();

        @Override
        public boolean handles(String type) {
            return type.startsWith("transfer_");
        }

        @Override
        public void onFrame(WireChannel channel, String type, String frame) {
            frames.add(frame);
        }

        JsonNode next(String type) throws Exception {
            while (true) {
                String f = frames.poll(10, TimeUnit.SECONDS);
                if (f == null) {
                    throw new AssertionError("no " + type + " frame within 10 s");
                }
                JsonNode n = JSON.readTree(f);
                if (type.equals(n.path("type").asText())) {
                    return n;
                }
            }
        }
    }

    @Test
    void aDaemonFailsADownloadAtOnceWhenAChunkHasInvalidBase64() throws Exception {
        Recording recording = new Recording();
        Path footRoot = Files.createDirectories(base.resolve("daemon"));
        try (TestServer server = new TestServer(b -> b.frameExtension(recording));
             ClientTransfers daemonTransfers = ClientTransfers.create(TargetResolver.at(footRoot),
                     new TransferScope("acme", "proj"), TransferSettings.defaults().toBuilder()
                             .phaseTimeout(Duration.ofMinutes(10)).build(), TransferListener.NONE)) {
            server.started(server.daemonBuilder("box", List.of(TestServer.echoRead("box")))
                    .frameExtension(daemonTransfers.extension()));
            FrameChannel<String> toDaemon = server.server.peers().find(new DaemonKey("acme", "proj", "box")).flatMap(Endpoint::transferChannel)
                    .orElseThrow();
            toDaemon.send("{\"type\":\"transfer_init\",\"transferId\":\"d1\",\"target\":\"in/a.bin\","
                    + "\"totalSize\":8,\"hash\":\"" + sha256(CONTENT) + "\"}");
            assertThat(recording.next("transfer_init_response").path("ok").asBoolean()).isTrue();
            toDaemon.send("{\"type\":\"transfer_chunk\",\"transferId\":\"d1\",\"seq\":0,\"bytes\":\"ZWlna@@@IGIh\","
                    + "\"last\":true}");
            JsonNode complete = recording.next("transfer_complete");
            assertThat(complete.path("ok").asBoolean()).isFalse();
            assertThat(complete.path("error").asText()).contains("could not be decoded", "base64");
            assertThat(filesUnder(footRoot)).as("no partial file on the daemon").isEmpty();
            assertThat(server.server.connections()).singleElement()
                    .satisfies(c -> assertThat(c.daemonName()).isEqualTo("box"));
        }
    }

    @AfterEach
    void stop() {
        callers.shutdownNow();
        foot.close();
        server.close();
    }

    private static String sha256(byte[] b) throws Exception {
        return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    /** The next frame of a type, skipping others (it fails after 10 s without one). */
    private JsonNode next(String type) throws Exception {
        while (true) {
            JsonNode f = JSON.readTree(foot.next());
            if (type.equals(f.path("type").asText())) {
                return f;
            }
        }
    }

    private List<Path> filesUnder(Path dir) throws Exception {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).toList();
        }
    }

    @Test
    void aChunkWithInvalidBase64FailsTheUploadAtOnceWithoutWaitingForTransferFinish() throws Exception {
        String dirName = (String) dispatcher.invoke("p-1", "workspace_create_ephemeral_dir", Map.of()).get("dirName");
        Path root = work.findRoot("acme", "proj", dirName).orElseThrow();
        Future<Map<String, Object>> upload = callers.submit(() -> dispatcher.invoke("p-1", "client_file_upload",
                Map.of("localPath", "local.bin", "dirName", dirName, "remotePath", "up.bin")));
        JsonNode request = next("client.file.upload.request");
        String id = request.path("transferId").asText();
        foot.send("{\"type\":\"transfer_init\",\"transferId\":\"" + id + "\",\"target\":\"up.bin\",\"dirName\":\""
                + dirName + "\",\"totalSize\":8,\"hash\":\"" + sha256(CONTENT) + "\"}");
        assertThat(next("transfer_init_response").path("ok").asBoolean()).isTrue();
        foot.send("{\"type\":\"transfer_chunk\",\"transferId\":\"" + id + "\",\"seq\":0,\"bytes\":\"ZWlna@@@IGIh\","
                + "\"last\":true}");
        JsonNode error = next("error");
        assertThat(error.path("code").asText()).isEqualTo("bad_frame");
        assertThat(error.path("message").asText()).contains("transfer_chunk", "base64");
        JsonNode complete = next("transfer_complete");
        assertThat(complete.path("transferId").asText()).isEqualTo(id);
        assertThat(complete.path("ok").asBoolean()).isFalse();
        assertThat(complete.path("error").asText()).contains("could not be decoded", "base64");
        Map<String, Object> r;
        try {
            r = upload.get(Await.LIMIT.toSeconds(), TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("the upload call still waits for the foot's transfer_finish", e);
        } catch (ExecutionException e) {
            throw new AssertionError("the upload call failed: " + e.getCause(), e.getCause());
        }
        assertThat(r).containsEntry("ok", false);
        assertThat((String) r.get("error")).contains("could not be decoded");
        assertThat(filesUnder(root)).as("no partial file in the RootDir").isEmpty();
        assertThat(foot.isOpen()).isTrue();
    }

    @Test
    void aChunkWithInvalidBase64ForAnUnknownTransferIsOnlyABadFrame() throws Exception {
        foot.send("{\"type\":\"transfer_chunk\",\"transferId\":\"nobody\",\"seq\":0,\"bytes\":\"@@@@\",\"last\":true}");
        assertThat(next("error").path("code").asText()).isEqualTo("bad_frame");
        // a round trip proves nothing else was sent for it: the next frame is the answer to this request
        String dirName = (String) dispatcher.invoke("p-1", "workspace_create_ephemeral_dir", Map.of()).get("dirName");
        callers.submit(() -> dispatcher.invoke("p-1", "client_file_upload",
                Map.of("localPath", "local.bin", "dirName", dirName, "remotePath", "up.bin")));
        assertThat(JSON.readTree(foot.next()).path("type").asText()).isEqualTo("client.file.upload.request");
        assertThat(foot.isOpen()).isTrue();
    }
}
