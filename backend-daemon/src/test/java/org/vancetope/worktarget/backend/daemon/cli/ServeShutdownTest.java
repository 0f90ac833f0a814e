package org.vancetope.worktarget.backend.daemon.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.backend.daemon.ClientTransfers;
import org.vancetope.worktarget.backend.daemon.WorkTargetClient;
import org.vancetope.worktarget.backend.daemon.internal.Wire;
import org.vancetope.worktarget.core.transfer.FootTargetResolver;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferScope;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.testfixtures.Await;

/**
 * {@code serve} stopping (SIGTERM runs {@link ServeCommand.Running#close}) while calls run: what a caller is
 * told, and what is kept on disk.
 */
class ServeShutdownTest {
    private static final String ADMIN_TOKEN = "admin-token-for-shutdown";
    private static final String DAEMON_TOKEN = "daemon-token-for-shutdown";
    /** Large against the chunks in flight when the daemon's sending is held, so the upload is cut mid-way. */
    private static final int SIZE = 8 * 1024 * 1024;

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    /** Holds the daemon's sending once it has sent a chunk, until the test releases it. */
    private final CountDownLatch held = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private ServeCommand.Running serve;
    private ClientTransfers clientTransfers;
    private WorkTargetClient daemon;

    @AfterEach
    void stop() {
        release.countDown();
        if (daemon != null) {
            daemon.close();
        }
        if (serve != null) {
            serve.close();
        }
        if (clientTransfers != null) {
            clientTransfers.close();
        }
    }

    private ServeCommand.Running startServe(Path workspace, Path tokens) throws Exception {
        PrintStream sink = new PrintStream(out, true, StandardCharsets.UTF_8);
        return ServeCommand.start(List.of("--workspace", workspace.toString(), "--tokens", tokens.toString(),
                "--port", "0", "--admin-port", "0", "--admin-token", ADMIN_TOKEN), sink, sink);
    }

    private WorkTargetClient connectDaemon(ServeCommand.Running to) throws InterruptedException {
        WorkTargetClient c = WorkTargetClient.builder()
                .uri(URI.create("ws://127.0.0.1:" + to.server().port() + "/worktarget/v1"))
                .token(DAEMON_TOKEN).daemon("acme", "proj", "box").frameExtension(clientTransfers.extension())
                .build().start();
        assertThat(c.awaitConnected(Duration.ofSeconds(10))).isTrue();
        return c;
    }

    private JsonNode call(ServeCommand.Running on, String target, String tool, Map<String, Object> params)
            throws Exception {
        byte[] body = Wire.mapper().writeValueAsBytes(Map.of("tenant", "acme", "project", "proj", "processId",
                "keeper", "target", target, "tool", tool, "params", params));
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + on.adminPort()
                        + "/admin/v1/call")).header("Authorization", "Bearer " + ADMIN_TOKEN)
                .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        return Wire.mapper().readTree(r.body());
    }

    /** The call's tool result, whether the admin API wraps it or not. */
    private static JsonNode result(JsonNode answer) {
        return answer.has("result") ? answer.get("result") : answer;
    }

    private static List<Path> reservedEntries(Path under) throws IOException {
        try (Stream<Path> s = Files.walk(under)) {
            return s.filter(p -> p.getFileName().toString().startsWith(".wt-")).toList();
        }
    }

    private static long reservedBytes(Path under) {
        try {
            long sum = 0;
            for (Path p : reservedEntries(under)) {
                sum += Files.size(p);
            }
            return sum;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String sha256(byte[] b) throws Exception {
        return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    /** What a shutdown left of an upload it cut off. */
    private record Cut(Path workspace, Path tokens, Path rootDir, String dirName, String resumeId, byte[] content) {
    }

    /**
     * Starts serve and a daemon, starts an upload from the daemon, holds the daemon's sending once part of
     * the file arrived, closes serve as SIGTERM does and checks what the upload's caller was told.
     */
    private Cut uploadCutOffByTheShutdown() throws Exception {
        Path workspace = Files.createDirectories(dir.resolve("workspace"));
        Path tokens = Files.writeString(dir.resolve("tokens.json"),
                "{\"tokens\":[{\"token\":\"" + DAEMON_TOKEN + "\",\"tenant\":\"acme\",\"projects\":[\"proj\"]}]}");
        Path footRoot = Files.createDirectories(dir.resolve("foot"));
        byte[] content = new byte[SIZE];
        new Random(7).nextBytes(content);
        Files.createDirectories(footRoot.resolve("acme/proj"));
        Files.write(footRoot.resolve("acme/proj/big.bin"), content);
        clientTransfers = ClientTransfers.create(FootTargetResolver.at(footRoot), new TransferScope("acme", "proj"),
                TransferSettings.defaults(), new TransferListener() {
                    @Override
                    public void onProgress(String transferId, Role role, long bytesDone, long totalBytes) {
                        if (role == Role.SENDER && held.getCount() > 0) {
                            held.countDown();
                            try {
                                release.await(60, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                    }
                });
        serve = startServe(workspace, tokens);
        daemon = connectDaemon(serve);
        String dirName = result(call(serve, "WORK", "workspace_create_ephemeral_dir",
                Map.of("deleteOnCreatorClose", false))).path("dirName").asText();
        assertThat(dirName).isNotEmpty();
        Path rootDir;
        try (Stream<Path> s = Files.walk(workspace)) {
            rootDir = s.filter(p -> p.getFileName().toString().equals(dirName)).findFirst().orElseThrow();
        }
        ServeCommand.Running first = serve;
        CompletableFuture<JsonNode> upload = CompletableFuture.supplyAsync(() -> {
            try {
                return call(first, "DAEMON:box", "client_file_upload",
                        Map.of("localPath", "big.bin", "dirName", dirName, "remotePath", "in/big.bin"));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(held.await(30, TimeUnit.SECONDS)).as("the daemon started sending").isTrue();
        Await.until("the server received part of the file", () -> reservedBytes(rootDir) > 0);

        serve.close();      // what SIGTERM does
        serve = null;
        release.countDown();

        JsonNode cut = result(upload.get(60, TimeUnit.SECONDS));
        assertThat(cut.path("ok").asBoolean(true)).as(cut.toString()).isFalse();
        assertThat(cut.path("code").asText()).as(cut.toString()).isEqualTo("offline");
        String resumeId = cut.path("resumeId").asText();
        assertThat(resumeId).as(cut.toString()).isNotEmpty();
        assertThat(reservedEntries(rootDir)).as("the staging file and its sidecar stay").hasSize(2);
        assertThat(rootDir.resolve("in/big.bin")).doesNotExist();
        daemon.close();
        daemon = null;
        return new Cut(workspace, tokens, rootDir, dirName, resumeId, content);
    }

    @Test
    void anUploadCutOffByTheShutdownAnswersItsCallerWithAResumeIdThatTheNextServeCompletes() throws Exception {
        Cut cut = uploadCutOffByTheShutdown();

        serve = startServe(cut.workspace(), cut.tokens());
        daemon = connectDaemon(serve);
        JsonNode resumed = result(call(serve, "DAEMON:box", "client_file_upload", Map.of("localPath", "big.bin",
                "dirName", cut.dirName(), "remotePath", "in/big.bin", "resumeId", cut.resumeId())));

        assertThat(resumed.path("ok").asBoolean()).as(resumed.toString()).isTrue();
        assertThat(resumed.path("hash").asText()).isEqualTo(sha256(cut.content()));
        assertThat(Files.readAllBytes(cut.rootDir().resolve("in/big.bin"))).isEqualTo(cut.content());
        assertThat(reservedEntries(cut.rootDir())).isEmpty();
    }

    @Test
    void whatAnEarlierRunKeptPastItsRetentionIsDeletedWhenServeStartsAndWhatIsWithinItStays() throws Exception {
        Cut cut = uploadCutOffByTheShutdown();
        List<Path> kept = reservedEntries(cut.rootDir());

        serve = startServe(cut.workspace(), cut.tokens());
        // a moment for the start's sweep: within the retention, nothing goes
        Thread.sleep(500);
        assertThat(reservedEntries(cut.rootDir())).as("within resumeRetention").hasSameElementsAs(kept);
        serve.close();
        serve = null;
        FileTime old = FileTime.from(Instant.now().minus(Duration.ofDays(1)));
        for (Path p : kept) {
            Files.setLastModifiedTime(p, old);
        }

        serve = startServe(cut.workspace(), cut.tokens());

        Await.until("the kept upload past its retention is deleted", () -> {
            try {
                return reservedEntries(cut.rootDir()).isEmpty();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }
}
