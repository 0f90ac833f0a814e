package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.transfer.FootTargetResolver;
import org.vancetope.worktarget.core.transfer.TransferCapability;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferScope;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.transfer.TransferCodec;

/**
 * A client holds what it sends to the limits the server announced in {@code welcome.limits}, and the server
 * to the frame limit a client announced in {@code hello.limits}: over real loopback WebSockets, on the base
 * protocol's JSON chunks and on binary ones ({@code transfer.binary}).
 */
class WelcomeLimitsTransferTest {
    private static final int KIB = 1024;

    @TempDir
    Path base;

    private TransferServerFixture server;
    private ClientTransfers clientTransfers;
    private Path footRoot;
    /** The largest step of received bytes, per receiving role, on the server and on the client. */
    private final Map<String, AtomicLong> largestChunk = new ConcurrentHashMap<>();

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        if (clientTransfers != null) {
            clientTransfers.close();
        }
    }

    private TransferListener recording(String end) {
        Map<String, Long> last = new ConcurrentHashMap<>();
        return new TransferListener() {
            @Override
            public void onProgress(String transferId, Role role, long bytesDone, long totalBytes) {
                if (role == Role.RECEIVER) {
                    long before = last.getOrDefault(transferId, 0L);
                    last.put(transferId, bytesDone);
                    largestChunk.computeIfAbsent(end, k -> new AtomicLong()).accumulateAndGet(bytesDone - before, Math::max);
                }
            }
        };
    }

    private long largestChunkReceivedBy(String end) {
        return largestChunk.getOrDefault(end, new AtomicLong()).get();
    }

    private static Set<TransferCapability> v1() {
        return Set.of();
    }

    private static Set<TransferCapability> binary() {
        return Set.of(TransferCapability.BINARY, TransferCapability.HASH_TRAILER);
    }

    /** Starts the server (announcing its limits unless {@code silent}) and a daemon "box" of p-1's project. */
    private void start(TransferSettings serverSettings, TransferSettings clientSettings, boolean silent,
                       int clientMaxFrameBytes) throws Exception {
        start(serverSettings, clientSettings, silent, 2 * KIB * KIB, clientMaxFrameBytes);
    }

    private void start(TransferSettings serverSettings, TransferSettings clientSettings, boolean silent,
                       int serverMaxFrameBytes, int clientMaxFrameBytes) throws Exception {
        server = new TransferServerFixture(base, serverSettings, recording("server"), silent, serverMaxFrameBytes);
        footRoot = Files.createDirectories(base.resolve("foot"));
        clientTransfers = ClientTransfers.create(FootTargetResolver.at(footRoot), new TransferScope("acme", "proj"),
                clientSettings, recording("client"));
        server.t.started(server.t.daemonBuilder("box", List.of(TestServer.echoRead("box")))
                .maxFrameBytes(clientMaxFrameBytes).frameExtension(clientTransfers.extension()));
        server.dispatcher.invoke("p-1", "work_target_set", Map.of("kind", "DAEMON", "targetName", "box"));
    }

    private static TransferSettings settings(int chunkSize, Set<TransferCapability> caps) {
        return TransferSettings.defaults().toBuilder().chunkSize(chunkSize).capabilities(caps).build();
    }

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        new Random(7).nextBytes(b);
        return b;
    }

    /** Uploads {@code content} from the daemon's local.bin into a new ephemeral RootDir. */
    private Map<String, Object> upload(byte[] content) throws Exception {
        Files.createDirectories(footRoot.resolve("acme/proj"));
        Files.write(footRoot.resolve("acme/proj/local.bin"), content);
        String dirName = (String) server.dispatcher.invoke("p-1", "workspace_create_ephemeral_dir", Map.of()).get("dirName");
        Map<String, Object> r = server.dispatcher.invoke("p-1", "client_file_upload",
                Map.of("localPath", "local.bin", "dirName", dirName, "remotePath", "up.bin"));
        if (Boolean.TRUE.equals(r.get("ok"))) {
            assertThat(Files.readAllBytes(server.work.findRoot("acme", "proj", dirName).orElseThrow().resolve("up.bin")))
                    .isEqualTo(content);
        }
        return r;
    }

    @Test
    void aClientWithALargerChunkSizeUploadsInJsonChunksOfTheServersMaximum() throws Exception {
        start(settings(16 * KIB, v1()), settings(256 * KIB, v1()), false, 2 * KIB * KIB);
        Map<String, Object> r = upload(bytes(200_000));
        assertThat(r).containsEntry("ok", true).containsEntry("bytesWritten", 200_000);
        assertThat(largestChunkReceivedBy("server")).isEqualTo(16 * KIB);
    }

    @Test
    void aClientWithALargerChunkSizeUploadsInBinaryChunksOfTheServersMaximum() throws Exception {
        start(settings(16 * KIB, binary()), settings(256 * KIB, binary()), false, 2 * KIB * KIB);
        Map<String, Object> r = upload(bytes(200_000));
        assertThat(r).containsEntry("ok", true).containsEntry("bytesWritten", 200_000);
        assertThat(largestChunkReceivedBy("server")).isEqualTo(16 * KIB);
    }

    @Test
    void aClientWithASmallerChunkSizeKeepsItsOwn() throws Exception {
        start(settings(256 * KIB, v1()), settings(16 * KIB, v1()), false, 2 * KIB * KIB);
        assertThat(upload(bytes(100_000))).containsEntry("ok", true);
        assertThat(largestChunkReceivedBy("server")).isEqualTo(16 * KIB);
    }

    @Test
    void aServerThatAnnouncesNoTransferLimitsGetsTheClientsOwnChunkSize() throws Exception {
        start(settings(256 * KIB, v1()), settings(64 * KIB, v1()), true, 2 * KIB * KIB);
        assertThat(upload(bytes(200_000))).containsEntry("ok", true);
        assertThat(largestChunkReceivedBy("server")).isEqualTo(64 * KIB);
    }

    @Test
    void aServerThatAnnouncesNoTransferLimitsRefusesALargerChunkAsBefore() throws Exception {
        start(settings(16 * KIB, v1()), settings(64 * KIB, v1()), true, 2 * KIB * KIB);
        Map<String, Object> r = upload(bytes(100_000));
        assertThat(r).containsEntry("ok", false).containsEntry("code", "size_limit");
        assertThat((String) r.get("error")).startsWith("chunk of 65536 bytes exceeds the chunk size 16384");
    }

    @Test
    void aFileAboveTheServersAnnouncedMaxUploadSizeIsRefusedByTheClientBeforeAnythingIsSent() throws Exception {
        TransferSettings serverSettings = settings(64 * KIB, v1()).toBuilder().maxUploadSize(100_000).build();
        start(serverSettings, settings(64 * KIB, v1()), false, 2 * KIB * KIB);
        Map<String, Object> r = upload(bytes(150_000));
        assertThat(r).containsEntry("ok", false).containsEntry("code", "size_limit");
        assertThat((String) r.get("error"))
                .startsWith("exceeds size limit (150000 bytes > the server's maxUploadSize 100000 bytes); the file was "
                        + "not moved. Compress or split the file first").contains("--max-transfer-mib");
        assertThat(largestChunkReceivedBy("server")).isZero();
    }

    @Test
    void chunksOfAnUploadFitTheServersAnnouncedFrameLimit() throws Exception {
        // a 64 KiB chunk is about 87 KiB of JSON: the server's 64 KiB frames would not carry it
        start(settings(64 * KIB, v1()), settings(64 * KIB, v1()), false, 64 * KIB, 2 * KIB * KIB);
        assertThat(upload(bytes(200_000))).containsEntry("ok", true);
        assertThat(largestChunkReceivedBy("server")).isEqualTo(TransferCodec.maxChunkBytes(64 * KIB, false));
    }

    @Test
    void chunksOfADownloadFitTheFrameLimitTheClientAnnounced() throws Exception {
        start(settings(64 * KIB, v1()), settings(64 * KIB, v1()), false, 64 * KIB);
        byte[] content = bytes(200_000);
        String dirName = (String) server.dispatcher.invoke("p-1", "workspace_create_ephemeral_dir", Map.of()).get("dirName");
        Files.write(server.work.findRoot("acme", "proj", dirName).orElseThrow().resolve("down.bin"), content);
        Map<String, Object> r = server.dispatcher.invoke("p-1", "client_file_download",
                Map.of("dirName", dirName, "remotePath", "down.bin", "localPath", "down.bin"));
        assertThat(r).containsEntry("ok", true).containsEntry("bytesWritten", 200_000);
        assertThat(Files.readAllBytes(footRoot.resolve("acme/proj/down.bin"))).isEqualTo(content);
        assertThat(largestChunkReceivedBy("client")).isEqualTo(TransferCodec.maxChunkBytes(64 * KIB, false));
    }

    /** A tree whose listing is far over 64 KiB: 400 files with names of 200 characters. */
    private static void longNamedTree(Path dir) throws Exception {
        Files.createDirectories(dir);
        for (int i = 0; i < 400; i++) {
            Files.writeString(dir.resolve(String.format("%0200d", i)), "x");
        }
    }

    @Test
    void aDirectoryUploadWhoseListingIsOverTheFrameLimitFailsSizeLimitAndTheConnectionServesOn() throws Exception {
        start(TransferSettings.defaults(), TransferSettings.defaults(), false, 64 * KIB);
        longNamedTree(footRoot.resolve("acme/proj/tree"));
        String dirName = (String) server.dispatcher.invoke("p-1", "workspace_create_ephemeral_dir", Map.of()).get("dirName");

        Map<String, Object> r = server.dispatcher.invoke("p-1", "client_dir_upload",
                Map.of("localPath", "tree", "dirName", dirName, "remotePath", "up"));

        assertThat(r).as(r.toString()).containsEntry("ok", false).containsEntry("code", "size_limit");
        assertThat(r.get("error").toString()).contains("400 entries", "frame limit of " + 64 * KIB, "smaller part");
        assertThat(upload(bytes(1000))).as("the connection serves on").containsEntry("ok", true);
    }

    @Test
    void aDirectoryDownloadWhoseListingIsOverTheFrameLimitFailsSizeLimitAndTheConnectionServesOn() throws Exception {
        start(TransferSettings.defaults(), TransferSettings.defaults(), false, 64 * KIB);
        String dirName = (String) server.dispatcher.invoke("p-1", "workspace_create_ephemeral_dir", Map.of()).get("dirName");
        longNamedTree(server.work.findRoot("acme", "proj", dirName).orElseThrow().resolve("tree"));

        Map<String, Object> r = server.dispatcher.invoke("p-1", "client_dir_download",
                Map.of("dirName", dirName, "remotePath", "tree", "localPath", "down"));

        assertThat(r).as(r.toString()).containsEntry("ok", false).containsEntry("code", "size_limit");
        assertThat(r.get("error").toString()).contains("frame limit of " + 64 * KIB, "smaller part");
        assertThat(footRoot.resolve("acme/proj/down")).doesNotExist();
        assertThat(upload(bytes(1000))).as("the connection serves on").containsEntry("ok", true);
    }
}
