package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.core.transfer.FootTargetResolver;
import org.vancetope.worktarget.core.transfer.RootDirTargetResolver;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferScope;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.core.InMemoryProcessStore;

/** wss:// end to end with a certificate made by the JDK's keytool. */
class TlsTest {
    private static final char[] PASSWORD = "changeit-tls".toCharArray();

    private static KeyStore keyStore(Path dir) throws Exception {
        Path file = dir.resolve("server.p12");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process p = new ProcessBuilder(keytool.toString(), "-genkeypair", "-keystore", file.toString(), "-storetype",
                "PKCS12", "-storepass", new String(PASSWORD), "-keypass", new String(PASSWORD), "-alias", "server",
                "-keyalg", "EC", "-dname", "CN=localhost", "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-validity", "2")
                .redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(output).isZero();
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            ks.load(in, PASSWORD);
        }
        return ks;
    }

    /** A server context with a fresh self-signed certificate, and a client context that trusts exactly it. */
    private record Tls(SslContext server, SslContext client) {
        static Tls in(Path dir) throws Exception {
            KeyStore ks = keyStore(dir);
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, PASSWORD);
            return new Tls(SslContextBuilder.forServer(kmf).build(),
                    SslContextBuilder.forClient().trustManager((X509Certificate) ks.getCertificate("server")).build());
        }
    }

    @Test
    void daemonConnectsAndAnswersOverWss(@TempDir Path dir) throws Exception {
        Tls tls = Tls.in(dir);
        SslContext serverTls = tls.server();
        SslContext clientTls = tls.client();
        try (TestServer t = new TestServer(b -> b.sslContext(serverTls))) {
            URI wss = URI.create("wss://127.0.0.1:" + t.server.port() + "/worktarget/v1");
            t.started(WorkTargetClient.builder().uri(wss).token(TestServer.DAEMON_TOKEN).daemon("acme", "proj", "box")
                    .sslContext(clientTls).tools(List.of(TestServer.echoRead("tls"))));
            assertThat(TestServer.invoke(t.server, new DaemonKey("acme", "proj", "box"), "client_file_read",
                    Map.of("path", "secret.txt"), TestServer.ctx(), Duration.ofSeconds(10)))
                    .containsEntry("content", "tls:secret.txt");
        }
    }

    /** The daemon writes its chunk frames whole and masked (not through Netty's encoder): they must pass TLS too. */
    @Test
    void anUploadFromTheDaemonArrivesIntactOverWss(@TempDir Path dir) throws Exception {
        Tls tls = Tls.in(dir);
        SslContext serverTls = tls.server();
        SslContext clientTls = tls.client();
        byte[] content = new byte[1_000_003];
        new java.util.Random(7).nextBytes(content);
        Path footRoot = Files.createDirectories(dir.resolve("foot/acme/proj"));
        Files.write(footRoot.resolve("local.bin"), content);
        try (WorkspaceBackend work = WorkspaceBackend.builder().workspaceRoot(dir.resolve("workspace")).build();
                ServerTransfers transfers = ServerTransfers.create(
                        new RootDirTargetResolver((sc, d) -> work.findRoot(sc.tenant(), sc.project(), d)),
                        TransferSettings.defaults(), TransferListener.NONE);
                ClientTransfers clientTransfers = ClientTransfers.create(FootTargetResolver.at(dir.resolve("foot")),
                        new TransferScope("acme", "proj"), TransferSettings.defaults(), TransferListener.NONE);
                TestServer t = new TestServer(b -> b.sslContext(serverTls).transfers(transfers))) {
            InMemoryProcessStore store = new InMemoryProcessStore();
            store.process("p-1").tenant("acme").project("proj").session("s-1").user("alice").add();
            WorkTargetDispatcher.Builder db = WorkTargetDispatcher.builder().processStore(store).backend(work)
                    .peers(t.server.peers());
            transfers.tools(work.ephemeralDirs()).forEach(db::hostTool);
            WorkTargetDispatcher dispatcher = db.build();
            URI wss = URI.create("wss://127.0.0.1:" + t.server.port() + "/worktarget/v1");
            t.started(WorkTargetClient.builder().uri(wss).token(TestServer.DAEMON_TOKEN).daemon("acme", "proj", "box")
                    .sslContext(clientTls).frameExtension(clientTransfers.extension()));
            String dirName = (String) dispatcher.invoke("p-1", "workspace_create_ephemeral_dir", Map.of()).get("dirName");
            dispatcher.invoke("p-1", "work_target_set", Map.of("kind", "DAEMON", "targetName", "box"));
            Map<String, Object> r = dispatcher.invoke("p-1", "client_file_upload",
                    Map.of("localPath", "local.bin", "dirName", dirName, "remotePath", "up/local.bin"));
            assertThat(r).containsEntry("ok", true);
            assertThat(Files.readAllBytes(work.findRoot("acme", "proj", dirName).orElseThrow().resolve("up/local.bin")))
                    .isEqualTo(content);
        }
    }

    @Test
    void clientThatDoesNotTrustTheCertificateNeverConnects(@TempDir Path dir) throws Exception {
        SslContext serverTls = Tls.in(dir).server();
        try (TestServer t = new TestServer(b -> b.sslContext(serverTls))) {
            URI wss = URI.create("wss://127.0.0.1:" + t.server.port() + "/worktarget/v1");
            WorkTargetClient c = t.track(WorkTargetClient.builder().uri(wss).token(TestServer.DAEMON_TOKEN)
                    .daemon("acme", "proj", "box").reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(100))
                    .build().start());
            assertThat(c.awaitConnected(Duration.ofSeconds(1))).isFalse();
            assertThat(t.server.peers().onlineDaemons("acme", "proj")).isEmpty();
        }
    }

    @Test
    void peerSilentAfterTheTlsHandshakeGets408AndIsClosedAfterTheUpgradeTimeout(@TempDir Path dir) throws Exception {
        KeyStore ks = keyStore(dir);
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, PASSWORD);
        SslContext serverTls = SslContextBuilder.forServer(kmf).build();
        javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance(
                javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        javax.net.ssl.SSLContext client = javax.net.ssl.SSLContext.getInstance("TLS");
        client.init(null, tmf.getTrustManagers(), null);
        // the deadline runs from the accept, the TLS handshake included: long enough for a handshake on a
        // loaded machine (a JVM's first one loads its crypto), or the server closes before it could answer 408
        try (TestServer t = new TestServer(b -> b.sslContext(serverTls).upgradeTimeout(Duration.ofSeconds(5)));
             javax.net.ssl.SSLSocket s = (javax.net.ssl.SSLSocket) client.getSocketFactory()
                     .createSocket("127.0.0.1", t.server.port())) {
            s.setSoTimeout(15_000);     // a bound far beyond the deadline
            s.startHandshake();
            String answer = new String(s.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
            assertThat(answer).startsWith("HTTP/1.1 408");
        }
    }
}
