package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.core.transfer.FootTargetResolver;
import org.vancetope.worktarget.core.transfer.TransferCapability;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferScope;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.Endpoint;

/**
 * The transfer capabilities are negotiated in the handshake over real loopback connections: a side that
 * offers none speaks the base protocol, and transfers work in both directions whatever each side offers.
 */
class TransferCapabilityNegotiationTest {
    @TempDir
    Path base;

    private TransferServerFixture server;
    private WorkspaceBackend work;
    private ServerTransfers transfers;
    private ClientTransfers clientTransfers;
    private TestServer t;
    private WorkTargetDispatcher dispatcher;
    private Path footRoot;

    /** {@code "trailer+binary"}, {@code "binary"}, {@code "none"} … as a set of capabilities. */
    private static Set<TransferCapability> parse(String names) {
        Set<TransferCapability> caps = java.util.EnumSet.noneOf(TransferCapability.class);
        for (String n : names.split("\\+")) {
            switch (n) {
                case "trailer" -> caps.add(TransferCapability.HASH_TRAILER);
                case "binary" -> caps.add(TransferCapability.BINARY);
                case "zstd" -> caps.add(TransferCapability.ZSTD);
                case "none" -> { }
                default -> throw new IllegalArgumentException(n);
            }
        }
        return caps;
    }

    private static TransferSettings offering(Set<TransferCapability> caps) {
        return TransferSettings.builder().capabilities(caps).build();
    }

    private void start(Set<TransferCapability> serverOffers, Set<TransferCapability> clientOffers) throws Exception {
        startServer(serverOffers);
        footRoot = Files.createDirectories(base.resolve("foot"));
        clientTransfers = ClientTransfers.create(FootTargetResolver.at(footRoot), new TransferScope("acme", "proj"),
                offering(clientOffers), TransferListener.NONE);
        t.started(t.daemonBuilder("box", List.of(TestServer.echoRead("box")))
                .frameExtension(clientTransfers.extension()));
        dispatcher.invoke("p-1", "work_target_set", Map.of("kind", "DAEMON", "targetName", "box"));
    }

    /** The server with its transfers and a dispatcher for process p-1; no daemon yet. */
    private void startServer(Set<TransferCapability> serverOffers) throws Exception {
        server = new TransferServerFixture(base, offering(serverOffers), TransferListener.NONE);
        work = server.work;
        transfers = server.transfers;
        t = server.t;
        dispatcher = server.dispatcher;
    }

    @AfterEach
    void stop() {
        if (t != null) {
            server.close();
            if (clientTransfers != null) {
                clientTransfers.close();
            }
        }
    }

    private static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** Random bytes whose first half is turned into text, so that with zstd some chunks compress and some go raw. */
    private static byte[] half(byte[] b) {
        for (int i = 0; i < b.length / 2; i++) {
            b[i] = (byte) ('a' + (b[i] & 7));
        }
        return b;
    }

    private static String sha256(byte[] b) throws Exception {
        return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    private Set<TransferCapability> serverSideCapabilities() {
        var channel = t.server.peers().find(new DaemonKey("acme", "proj", "box")).flatMap(Endpoint::transferChannel)
                .orElseThrow();
        return ((TransferBridge) transfers.extension()).connection(channel).orElseThrow().capabilities();
    }

    @ParameterizedTest(name = "server offers {0}, the daemon {1}")
    @CsvSource({"trailer+binary, trailer+binary", "trailer+binary, none", "none, trailer+binary", "none, none",
            "binary, trailer+binary", "trailer+binary, trailer", "binary, trailer",
            "trailer+binary+zstd, trailer+binary+zstd", "trailer+binary+zstd, none", "none, trailer+binary+zstd",
            "trailer+binary+zstd, trailer+binary", "trailer+binary, trailer+binary+zstd", "zstd, zstd",
            "binary+zstd, zstd"})
    void theConnectionUsesTheCapabilitiesBothEndsOfferAndTransfersWorkBothWays(String server, String daemon)
            throws Exception {
        Set<TransferCapability> serverOffers = parse(server);
        Set<TransferCapability> clientOffers = parse(daemon);
        start(serverOffers, clientOffers);
        Set<TransferCapability> both = java.util.EnumSet.noneOf(TransferCapability.class);
        both.addAll(serverOffers);
        both.retainAll(clientOffers);
        assertThat(serverSideCapabilities()).isEqualTo(both);

        byte[] down = half(bytes(300_000, 1));
        String dirName = (String) dispatcher.invoke("p-1", "workspace_create_ephemeral_dir", Map.of()).get("dirName");
        Files.write(work.findRoot("acme", "proj", dirName).orElseThrow().resolve("report.bin"), down);
        Map<String, Object> d = dispatcher.invoke("p-1", "client_file_download",
                Map.of("dirName", dirName, "remotePath", "report.bin", "localPath", "in/report.bin"));
        assertThat(d).containsEntry("ok", true).containsEntry("hash", sha256(down));
        assertThat(Files.readAllBytes(footRoot.resolve("acme/proj/in/report.bin"))).isEqualTo(down);

        byte[] up = half(bytes(200_000, 2));
        Files.write(footRoot.resolve("acme/proj/local.bin"), up);
        Map<String, Object> u = dispatcher.invoke("p-1", "client_file_upload",
                Map.of("localPath", "local.bin", "dirName", dirName, "remotePath", "up/local.bin"));
        assertThat(u).containsEntry("ok", true).containsEntry("hash", sha256(up));
        assertThat(Files.readAllBytes(work.findRoot("acme", "proj", dirName).orElseThrow().resolve("up/local.bin")))
                .isEqualTo(up);
    }

    @org.junit.jupiter.api.Test
    void withTransferBinaryTheChunksTravelAsBinaryFramesOnTheWire() throws Exception {
        startServer(java.util.EnumSet.allOf(TransferCapability.class));
        byte[] content = bytes(150_000, 3);
        String dirName = (String) dispatcher.invoke("p-1", "workspace_create_ephemeral_dir", Map.of()).get("dirName");
        Files.write(work.findRoot("acme", "proj", dirName).orElseThrow().resolve("r.bin"), content);
        org.vancetope.worktarget.transfer.TransferCodec codec = org.vancetope.worktarget.transfer.TransferCodec.create();
        try (SocketPeer peer = SocketPeer.connect(t.uri(), TestServer.DAEMON_TOKEN, "daemon")) {
            peer.sendText("{\"type\":\"hello\",\"protocolVersion\":1,\"profile\":\"daemon\",\"tenant\":\"acme\","
                    + "\"project\":\"proj\",\"daemonName\":\"box\",\"tools\":[],"
                    + "\"capabilities\":[\"transfer.binary\"]}");
            assertThat(peer.next().text()).contains("\"welcome\"", "\"transfer.binary\"");
            dispatcher.invoke("p-1", "work_target_set", Map.of("kind", "DAEMON", "targetName", "box"));
            var download = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return dispatcher.invoke("p-1", "client_file_download",
                            Map.of("dirName", dirName, "remotePath", "r.bin", "localPath", "r.bin"));
                } catch (org.vancetope.worktarget.spi.ToolException e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
            });
            SocketPeer.Frame init = peer.next();
            assertThat(init.opcode()).isEqualTo(SocketPeer.TEXT);
            String id = (String) new com.fasterxml.jackson.databind.ObjectMapper().readValue(init.text(), Map.class)
                    .get("transferId");
            assertThat(init.text()).contains("\"transfer_init\"", "\"hash\"");
            peer.sendText("{\"type\":\"transfer_init_response\",\"transferId\":\"" + id + "\",\"ok\":true}");
            java.io.ByteArrayOutputStream received = new java.io.ByteArrayOutputStream();
            long seq = 0;
            boolean last = false;
            while (!last) {
                SocketPeer.Frame f = peer.next();
                assertThat(f.opcode()).as("a chunk is a binary frame").isEqualTo(2);
                org.vancetope.worktarget.core.transfer.TransferChunk c =
                        codec.decodeBinaryChunk(java.nio.ByteBuffer.wrap(f.payload()));
                assertThat(c.transferId()).isEqualTo(id);
                assertThat(c.seq()).isEqualTo(seq++);
                received.write(c.bytes());
                last = c.last();
            }
            assertThat(received.toByteArray()).isEqualTo(content);
            peer.sendText("{\"type\":\"transfer_complete\",\"transferId\":\"" + id + "\",\"ok\":true,"
                    + "\"bytesWritten\":" + content.length + ",\"hashCheck\":\"ok\"}");
            assertThat(download.get(30, java.util.concurrent.TimeUnit.SECONDS)).containsEntry("ok", true);
        }
    }

    @org.junit.jupiter.api.Test
    void zstdIsUsableInTheseTests() {
        assertThat(TransferSettings.defaults().capabilities()).contains(TransferCapability.ZSTD);
    }

    /** A file in a new ephemeral RootDir of the server; returns the dirName. */
    private String serverFile(String name, byte[] content) throws Exception {
        String dirName = (String) dispatcher.invoke("p-1", "workspace_create_ephemeral_dir", Map.of()).get("dirName");
        Files.write(work.findRoot("acme", "proj", dirName).orElseThrow().resolve(name), content);
        return dirName;
    }

    /** A daemon played by the test on a real socket, offering {@code capabilities}; returns the welcome's text. */
    private String hello(SocketPeer peer, String capabilities) throws Exception {
        peer.sendText("{\"type\":\"hello\",\"protocolVersion\":1,\"profile\":\"daemon\",\"tenant\":\"acme\","
                + "\"project\":\"proj\",\"daemonName\":\"box\",\"tools\":[],\"capabilities\":" + capabilities + "}");
        String welcome = peer.next().text();
        dispatcher.invoke("p-1", "work_target_set", Map.of("kind", "DAEMON", "targetName", "box"));
        return welcome;
    }

    private java.util.concurrent.CompletableFuture<Map<String, Object>> downloadAsync(String dirName, String name) {
        return java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return dispatcher.invoke("p-1", "client_file_download",
                        Map.of("dirName", dirName, "remotePath", name, "localPath", name));
            } catch (org.vancetope.worktarget.spi.ToolException e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        });
    }

    /** Accepts the transfer the init names and reads its binary chunks up to the last; answers complete. */
    private static List<org.vancetope.worktarget.core.transfer.TransferChunk> receive(SocketPeer peer, String id,
                                                                                     long size) throws Exception {
        org.vancetope.worktarget.transfer.TransferCodec codec = org.vancetope.worktarget.transfer.TransferCodec.create();
        peer.sendText("{\"type\":\"transfer_init_response\",\"transferId\":\"" + id + "\",\"ok\":true}");
        List<org.vancetope.worktarget.core.transfer.TransferChunk> chunks = new java.util.ArrayList<>();
        while (chunks.isEmpty() || !chunks.get(chunks.size() - 1).last()) {
            SocketPeer.Frame f = peer.next();
            assertThat(f.opcode()).as("a chunk is a binary frame").isEqualTo(2);
            chunks.add(codec.decodeBinaryChunk(java.nio.ByteBuffer.wrap(f.payload())));
        }
        peer.sendText("{\"type\":\"transfer_complete\",\"transferId\":\"" + id + "\",\"ok\":true,"
                + "\"bytesWritten\":" + size + ",\"hashCheck\":\"ok\"}");
        return chunks;
    }

    /**
     * A daemon that offers {@code transfer.zstd} (and binary frames) receives a text file: the init
     * announces zstd, the chunks carry the zstd flag and their decompressed size, and they decompress to the file.
     */
    @org.junit.jupiter.api.Test
    void withTransferZstdTheChunksTravelCompressedOnTheWire() throws Exception {
        startServer(java.util.EnumSet.allOf(TransferCapability.class));
        StringBuilder text = new StringBuilder();
        for (int i = 0; text.length() < 400_000; i++) {
            text.append("row ").append(i).append(", a line of ordinary text that compresses well\n");
        }
        byte[] content = text.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        String dirName = serverFile("r.txt", content);
        try (SocketPeer peer = SocketPeer.connect(t.uri(), TestServer.DAEMON_TOKEN, "daemon")) {
            assertThat(hello(peer, "[\"transfer.binary\",\"transfer.zstd\"]")).contains("\"welcome\"",
                    "\"transfer.zstd\"");
            var download = downloadAsync(dirName, "r.txt");
            Map<?, ?> init = new com.fasterxml.jackson.databind.ObjectMapper().readValue(peer.next().text(), Map.class);
            assertThat(init.get("compression")).isEqualTo("zstd");
            var chunks = receive(peer, (String) init.get("transferId"), content.length);
            java.io.ByteArrayOutputStream received = new java.io.ByteArrayOutputStream();
            long onTheWire = 0;
            for (var c : chunks) {
                assertThat(c.compressed()).as("chunk %s", c.seq()).isTrue();
                onTheWire += c.bytes().length;
                received.write(com.github.luben.zstd.Zstd.decompress(c.bytes(), c.rawSize()));
            }
            assertThat(received.toByteArray()).isEqualTo(content);
            assertThat(onTheWire).isLessThan(content.length / 4);
            assertThat(download.get(30, java.util.concurrent.TimeUnit.SECONDS)).containsEntry("ok", true);
        }
    }

    /** A daemon that does not offer {@code transfer.zstd} (as one without zstd-jni) gets raw chunks and no announcement. */
    @org.junit.jupiter.api.Test
    void aPeerWithoutZstdGetsNeitherTheAnnouncementNorCompressedChunks() throws Exception {
        startServer(java.util.EnumSet.allOf(TransferCapability.class));
        byte[] content = "text text text text text text text text text text\n".repeat(5000)
                .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        String dirName = serverFile("r.txt", content);
        try (SocketPeer peer = SocketPeer.connect(t.uri(), TestServer.DAEMON_TOKEN, "daemon")) {
            assertThat(hello(peer, "[\"transfer.binary\"]")).contains("\"welcome\"").doesNotContain("transfer.zstd");
            var download = downloadAsync(dirName, "r.txt");
            String init = peer.next().text();
            assertThat(init).contains("\"transfer_init\"").doesNotContain("compression");
            String id = (String) new com.fasterxml.jackson.databind.ObjectMapper().readValue(init, Map.class)
                    .get("transferId");
            java.io.ByteArrayOutputStream received = new java.io.ByteArrayOutputStream();
            for (var c : receive(peer, id, content.length)) {
                assertThat(c.compressed()).isFalse();
                received.write(c.bytes());
            }
            assertThat(received.toByteArray()).isEqualTo(content);
            assertThat(download.get(30, java.util.concurrent.TimeUnit.SECONDS)).containsEntry("ok", true);
        }
    }
}
