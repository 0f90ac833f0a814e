package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.spi.ToolException;

/**
 * Every transfer failure reaches the tool caller with its stable code, carried in the failing frame's
 * {@code code} from where it arose (never read from the message), and a message that says what to do.
 * The daemon is played by the test on a real loopback socket, so it can send what a correct client never does.
 */
class TransferErrorCodesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final byte[] CONTENT = "twelve bytes".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path base;

    private TransferServerFixture server;
    private SocketPeer peer;
    private String dirName;

    @AfterEach
    void stop() throws Exception {
        if (peer != null) {
            peer.close();
        }
        server.close();
    }

    /** The server (chunk size 1 KiB) and a daemon "box" played by the test, offering {@code capabilities}. */
    private void start(String capabilities) throws Exception {
        start(capabilities, 0);
    }

    /** {@link #start(String)} with a disk budget per project in the server's workspace. */
    private void start(String capabilities, long projectMaxBytes) throws Exception {
        server = new TransferServerFixture(base, TransferSettings.defaults().toBuilder().chunkSize(1024).build(),
                TransferListener.NONE, false, 2 * 1024 * 1024, projectMaxBytes);
        peer = SocketPeer.connect(server.t.uri(), TestServer.DAEMON_TOKEN, "daemon");
        peer.sendText("{\"type\":\"hello\",\"protocolVersion\":1,\"profile\":\"daemon\",\"tenant\":\"acme\","
                + "\"project\":\"proj\",\"daemonName\":\"box\",\"tools\":[],\"capabilities\":" + capabilities + "}");
        assertThat(peer.next().text()).contains("\"welcome\"");
        server.dispatcher.invoke("p-1", "work_target_set", Map.of("kind", "DAEMON", "targetName", "box"));
        dirName = (String) server.dispatcher.invoke("p-1", "workspace_create_ephemeral_dir", Map.of()).get("dirName");
    }

    private CompletableFuture<Map<String, Object>> uploadAsync() {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return server.dispatcher.invoke("p-1", "client_file_upload",
                        Map.of("localPath", "local.bin", "dirName", dirName, "remotePath", "up.bin"));
            } catch (ToolException e) {
                throw new CompletionException(e);
            }
        });
    }

    /** Reads the server's upload request and answers it with a transfer_init of CONTENT; returns the transfer id. */
    private String initUpload(String hash) throws Exception {
        Map<String, Object> request = next();
        assertThat(request.get("type")).isEqualTo("client.file.upload.request");
        String id = (String) request.get("transferId");
        peer.sendText("{\"type\":\"transfer_init\",\"transferId\":\"" + id + "\",\"target\":\"up.bin\",\"dirName\":\""
                + dirName + "\",\"totalSize\":" + CONTENT.length + ",\"hash\":\"" + hash + "\"}");
        Map<String, Object> response = next();
        assertThat(response).containsEntry("type", "transfer_init_response").containsEntry("ok", true);
        return id;
    }

    /** The next text frame from the server, as JSON fields. */
    private Map<String, Object> next() throws Exception {
        return JSON.readValue(peer.next().text(), new TypeReference<Map<String, Object>>() { });
    }

    private static String chunk(String id, long seq, byte[] bytes, boolean last, String extra) {
        return "{\"type\":\"transfer_chunk\",\"transferId\":\"" + id + "\",\"seq\":" + seq + ",\"bytes\":\""
                + Base64.getEncoder().encodeToString(bytes) + "\",\"last\":" + last + extra + "}";
    }

    private static String sha256(byte[] b) throws Exception {
        return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    /** The server's transfer_complete, as the test daemon read it. */
    private Map<String, Object> complete() throws Exception {
        Map<String, Object> c = next();
        assertThat(c.get("type")).isEqualTo("transfer_complete");
        return c;
    }

    private Map<String, Object> result(CompletableFuture<Map<String, Object>> upload) throws Exception {
        return upload.get(30, TimeUnit.SECONDS);
    }

    private void assertNothingLanded() throws Exception {
        try (Stream<Path> s = Files.list(server.work.findRoot("acme", "proj", dirName).orElseThrow())) {
            assertThat(s.toList()).isEmpty();
        }
    }

    @Test
    void aCompressedChunkOfATransferAnnouncedWithoutZstdIsZstdRefused() throws Exception {
        start("[\"transfer.zstd\"]");
        var upload = uploadAsync();
        String id = initUpload(sha256(CONTENT));
        peer.sendText(chunk(id, 0, CONTENT, true, ",\"compression\":\"zstd\",\"rawSize\":12"));
        assertThat(complete()).containsEntry("ok", false).containsEntry("code", "zstd_refused");
        Map<String, Object> r = result(upload);
        assertThat(r).containsEntry("ok", false).containsEntry("code", "zstd_refused");
        assertThat((String) r.get("error")).startsWith("zstd_refused: chunk 0 is zstd-compressed, and transfer_init "
                + "announced no compression");
        assertNothingLanded();
    }

    @Test
    void anUndecodableTransferInitFailsTheUploadAtOnceWithBadFrame() throws Exception {
        start("[]");
        var upload = uploadAsync();
        Map<String, Object> request = next();
        String id = (String) request.get("transferId");
        peer.sendText("{\"type\":\"transfer_init\",\"transferId\":\"" + id + "\",\"target\":\"up.bin\",\"dirName\":\""
                + dirName + "\",\"totalSize\":\"twelve\"}");

        Map<String, Object> r = result(upload);
        assertThat(r).containsEntry("ok", false).containsEntry("code", "bad_frame");
        assertThat((String) r.get("error")).contains("transfer_init could not be decoded", "totalSize");
        assertNothingLanded();
    }

    @Test
    void aFileThatWouldTakeTheProjectOverItsDiskBudgetIsBudgetExceededBeforeAnythingIsWritten() throws Exception {
        start("[]", 1024 * 1024);
        var upload = uploadAsync();
        Map<String, Object> request = next();
        String id = (String) request.get("transferId");
        peer.sendText("{\"type\":\"transfer_init\",\"transferId\":\"" + id + "\",\"target\":\"up.bin\",\"dirName\":\""
                + dirName + "\",\"totalSize\":" + (2 * 1024 * 1024) + ",\"hash\":\"" + sha256(CONTENT) + "\"}");

        Map<String, Object> response = next();
        assertThat(response).containsEntry("type", "transfer_init_response").containsEntry("ok", false)
                .containsEntry("code", "budget_exceeded");
        Map<String, Object> r = result(upload);
        assertThat(r).containsEntry("ok", false).containsEntry("code", "budget_exceeded");
        assertThat((String) r.get("error")).contains("this transfer adds 2.0 MiB", "disk budget of 1.0 MiB",
                "nothing was written");
        assertNothingLanded();
    }

    @Test
    void aFileWithinTheProjectsDiskBudgetLands() throws Exception {
        start("[]", 1024 * 1024);
        var upload = uploadAsync();
        String id = initUpload(sha256(CONTENT));
        peer.sendText(chunk(id, 0, CONTENT, true, ""));
        assertThat(complete()).containsEntry("ok", true);
        // the client ends the transfer with its verdict, as a daemon does; the tool returns then
        peer.sendText("{\"type\":\"transfer_finish\",\"transferId\":\"" + id + "\",\"ok\":true}");
        assertThat(result(upload)).containsEntry("ok", true);
        assertThat(Files.readAllBytes(server.work.findRoot("acme", "proj", dirName).orElseThrow().resolve("up.bin")))
                .isEqualTo(CONTENT);
    }

    @Test
    void aWrongHashIsHashMismatch() throws Exception {
        start("[]");
        var upload = uploadAsync();
        String id = initUpload(sha256("other bytes!".getBytes(StandardCharsets.US_ASCII)));
        peer.sendText(chunk(id, 0, CONTENT, true, ""));
        assertThat(complete()).containsEntry("code", "hash_mismatch").containsEntry("hashCheck", "mismatch");
        Map<String, Object> r = result(upload);
        assertThat(r).containsEntry("ok", false).containsEntry("code", "hash_mismatch").containsEntry("error",
                "hash mismatch");
        assertNothingLanded();
    }

    @Test
    void aChunkOutOfOrderIsBadFrameAndSaysToSendTheFileAgain() throws Exception {
        start("[]");
        var upload = uploadAsync();
        String id = initUpload(sha256(CONTENT));
        peer.sendText(chunk(id, 1, CONTENT, true, ""));
        assertThat(complete()).containsEntry("code", "bad_frame");
        Map<String, Object> r = result(upload);
        assertThat(r).containsEntry("ok", false).containsEntry("code", "bad_frame").containsEntry("error",
                "chunk out of order: expected seq 0, got 1; send the file again");
        assertNothingLanded();
    }

    @Test
    void aChunkAboveTheServersChunkSizeIsSizeLimitAndNamesTheLimit() throws Exception {
        start("[]");
        var upload = uploadAsync();
        String id = initUpload(sha256(CONTENT));
        peer.sendText(chunk(id, 0, new byte[2000], false, ""));
        assertThat(complete()).containsEntry("code", "size_limit");
        Map<String, Object> r = result(upload);
        assertThat(r).containsEntry("ok", false).containsEntry("code", "size_limit");
        assertThat((String) r.get("error")).startsWith("chunk of 2000 bytes exceeds the chunk size 1024; send chunks "
                + "of at most that many bytes");
        assertNothingLanded();
    }

    @Test
    void theClientsOwnFailureReachesTheToolWithTheCodeItNamed() throws Exception {
        start("[]");
        var upload = uploadAsync();
        Map<String, Object> request = next();
        peer.sendText("{\"type\":\"transfer_finish\",\"transferId\":\"" + request.get("transferId") + "\",\"ok\":false,"
                + "\"error\":\"File 'local.bin' does not exist. Call file_list.\",\"code\":\"not_found\"}");
        Map<String, Object> r = result(upload);
        assertThat(r).containsEntry("ok", false).containsEntry("code", "not_found").containsEntry("error",
                "File 'local.bin' does not exist. Call file_list.");
    }

    @Test
    void aFailureFromAPeerThatNamesNoCodeIsInternalWhateverItsWording() throws Exception {
        start("[]");
        var upload = uploadAsync();
        Map<String, Object> request = next();
        peer.sendText("{\"type\":\"transfer_finish\",\"transferId\":\"" + request.get("transferId") + "\",\"ok\":false,"
                + "\"error\":\"File 'local.bin' does not exist.\"}");
        assertThat(result(upload)).containsEntry("ok", false).containsEntry("code", "internal");
    }

    @Test
    void anUnknownCodeFromAPeerIsInternal() throws Exception {
        start("[]");
        var upload = uploadAsync();
        Map<String, Object> request = next();
        peer.sendText("{\"type\":\"transfer_finish\",\"transferId\":\"" + request.get("transferId") + "\",\"ok\":false,"
                + "\"error\":\"the moon is in the way\",\"code\":\"moon_in_the_way\"}");
        assertThat(result(upload)).containsEntry("ok", false).containsEntry("code", "internal")
                .containsEntry("error", "the moon is in the way");
    }

    @Test
    void aConnectionLostMidUploadIsOffline() throws Exception {
        start("[]");
        var upload = uploadAsync();
        initUpload(sha256(CONTENT));
        peer.close();
        peer = null;
        Map<String, Object> r = result(upload);
        assertThat(r).containsEntry("ok", false).containsEntry("code", "offline").containsEntry("error",
                "connection closed");
        assertNothingLanded();
    }

    @Test
    void aDownloadTheClientRefusesForLackOfSpaceIsDiskFull() throws Exception {
        start("[]");
        Files.write(server.work.findRoot("acme", "proj", dirName).orElseThrow().resolve("d.bin"), CONTENT);
        var download = CompletableFuture.supplyAsync(() -> {
            try {
                return server.dispatcher.invoke("p-1", "client_file_download",
                        Map.of("dirName", dirName, "remotePath", "d.bin", "localPath", "d.bin"));
            } catch (ToolException e) {
                throw new CompletionException(e);
            }
        });
        Map<String, Object> init = next();
        assertThat(init.get("type")).isEqualTo("transfer_init");
        peer.sendText("{\"type\":\"transfer_init_response\",\"transferId\":\"" + init.get("transferId") + "\",\"ok\":false,"
                + "\"error\":\"disk_full: the receiving disk has 3 bytes free and the file needs 12; free space there and "
                + "retry\",\"code\":\"disk_full\"}");
        Map<String, Object> r = download.get(30, TimeUnit.SECONDS);
        assertThat(r).containsEntry("ok", false).containsEntry("code", "disk_full");
        assertThat((String) r.get("error")).endsWith("free space there and retry");
    }
}
