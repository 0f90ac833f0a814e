package org.vancetope.worktarget.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.KeyPair;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.config.hosts.HostConfigEntryResolver;
import org.apache.sshd.client.keyverifier.RequiredServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.file.virtualfs.VirtualFileSystemFactory;
import org.apache.sshd.common.kex.KexProposalOption;
import org.apache.sshd.common.keyprovider.KeyIdentityProvider;
import org.apache.sshd.server.SshServer;
import org.apache.sshd.server.keyprovider.SimpleGeneratorHostKeyProvider;
import org.apache.sshd.sftp.client.SftpClient;
import org.apache.sshd.sftp.client.SftpClientFactory;
import org.apache.sshd.sftp.client.extensions.CheckFileNameExtension;
import org.apache.sshd.sftp.server.SftpSubsystemFactory;

/**
 * The MINA SSHD SFTP reference of the transfer benchmarks: an SFTP server ({@link SshServer} +
 * {@link SftpSubsystemFactory}) in a child JVM and an {@link SshClient} + {@link SftpClient} in this
 * JVM, both with MINA's default settings (default ciphers/MACs, NIO2 I/O, default SFTP buffer sizes
 * and read-ahead/write-behind), moving whole files over loopback. The only client settings changed are
 * isolation from the user's {@code ~/.ssh} (no {@code ssh_config}, no default identities) and the
 * pinned host key.
 *
 * <pre>{@code
 * try (SftpHarness sftp = SftpHarness.start(baseDir, serverDir, "1g", List.of())) {
 *     long t0 = System.nanoTime();
 *     String up = sftp.upload(source, "up.bin");          // this JVM -> child; hashed by the child
 *     long t1 = System.nanoTime();
 *     String down = sftp.download("source.bin", target);  // child -> this JVM; hashed here while writing
 *     long t2 = System.nanoTime();
 * }
 * }</pre>
 *
 * <p>The child is {@code java -Xms<heap> -Xmx<heap> -XX:+AlwaysPreTouch -Xlog:gc:file=<baseDir>/sftp-server.gc.log
 * <extraJvmArgs> -cp <this classpath> SftpHarness --sftp-server <portFile> <serverDir>}; its output goes to
 * {@code <baseDir>/sftp-server.log}. It writes its host key to {@code <baseDir>/sftp-hostkey.ser} (the
 * client accepts only that key) and its bound loopback port to the port file, and it exits when its
 * standard input is closed (so it does not outlive this JVM). One user, {@code bench}, logs in with a
 * random password handed to the child in its environment; the user's file system is a
 * {@link VirtualFileSystemFactory} rooted at {@code serverDir}, so remote names are relative to it.
 *
 * <p>What a call does, i.e. what a caller timing it measures:
 * <ul>
 *   <li>{@link #upload}: {@link SftpClient#put(Path, String, SftpClient.OpenMode...)} (MINA's own
 *       "copy this local file to that remote name", which streams through
 *       {@link SftpClient#write(String)} with its default buffer size and pipelined writes), then a
 *       {@code check-file-name} request for {@code sha256} over the whole file, so the receiver (the
 *       child) reads the file it just wrote back from the page cache and hashes it. The receiver's hash
 *       is thus an extra pass after writing, not computed while writing.</li>
 *   <li>{@link #download}: {@link SftpClient#read(String)} (default buffer size and read-ahead) copied in
 *       64 KiB reads to the local file, each read hashed with SHA-256 here before it is written.</li>
 * </ul>
 * Neither side hashes the source before sending; the caller compares the returned hash with the one it
 * knows. Direction names are SFTP's (the client's view): {@code upload} moves bytes this JVM → child,
 * the same direction as WorkTarget's {@code client_file_download} (Brain → daemon), and
 * {@code download} moves child → this JVM like {@code client_file_upload}.
 *
 * <p>It does not tune MINA, retry, resume, or run several transfers at once (one SFTP channel over one
 * SSH session; calls are not thread-safe).
 */
public final class SftpHarness implements AutoCloseable {
    /** The user the child's server accepts. */
    private static final String USER = "bench";
    /** The environment variable that hands the password to the child. */
    private static final String PASSWORD_ENV = "SFTPBENCH_PASSWORD";
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int COPY_BUFFER = 64 * 1024;

    private final Process child;
    private final Path baseDir;
    private final SshClient client;
    private final ClientSession session;
    private final SftpClient sftp;

    private SftpHarness(Process child, Path baseDir, SshClient client, ClientSession session, SftpClient sftp) {
        this.child = child;
        this.baseDir = baseDir;
        this.client = client;
        this.session = session;
        this.sftp = sftp;
    }

    /**
     * Starts the SFTP server in a child JVM serving {@code serverDir}, waits (at most 60 s) for its port,
     * and connects and authenticates an SFTP client to it.
     *
     * @param baseDir       an existing directory for the child's port file, host key, log and GC log
     * @param serverDir     an existing directory the server's user sees as its root
     * @param childHeap     the child's {@code -Xms}/{@code -Xmx} value, e.g. {@code "1g"}
     * @param extraJvmArgs  more JVM flags for the child (e.g. a profiler), placed before {@code -cp}
     * @return the connected harness; close it to disconnect and stop the child
     * @throws IOException if the child does not start or the connection or login fails
     */
    public static SftpHarness start(Path baseDir, Path serverDir, String childHeap, List<String> extraJvmArgs)
            throws IOException {
        Path portFile = baseDir.resolve("sftp-server.port");
        Files.deleteIfExists(portFile);
        String password = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java, "-Xms" + childHeap, "-Xmx" + childHeap,
                "-XX:+AlwaysPreTouch", "-Xlog:gc:file=" + baseDir.resolve("sftp-server.gc.log"),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
        cmd.addAll(extraJvmArgs);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), SftpHarness.class.getName(),
                "--sftp-server", portFile.toString(), serverDir.toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(baseDir.resolve("sftp-server.log").toFile()));
        pb.environment().put(PASSWORD_ENV, password);
        Process child = pb.start();
        SshClient client = null;
        try {
            int port = awaitPort(child, portFile, baseDir.resolve("sftp-server.log"));
            client = SshClient.setUpDefaultClient();
            client.setServerKeyVerifier(new RequiredServerKeyVerifier(hostKey(baseDir)));
            client.setHostConfigEntryResolver(HostConfigEntryResolver.EMPTY);
            client.setKeyIdentityProvider(KeyIdentityProvider.EMPTY_KEYS_PROVIDER);
            client.start();
            ClientSession session = client.connect(USER, "127.0.0.1", port).verify(TIMEOUT).getSession();
            session.addPasswordIdentity(password);
            session.auth().verify(TIMEOUT);
            SftpClient sftp = SftpClientFactory.instance().createSftpClient(session);
            return new SftpHarness(child, baseDir, client, session, sftp);
        } catch (IOException | RuntimeException e) {
            if (client != null) {
                client.stop();
            }
            stopChild(child);
            throw e;
        }
    }

    /**
     * Copies a local file to the server under {@code remoteName} (replacing it) and asks the server for
     * the SHA-256 of what it stored.
     *
     * @param local      the file to send
     * @param remoteName the name relative to the server directory
     * @return the receiver's hash, {@code "sha256:<hex>"}
     * @throws IOException if the transfer or the hash request fails
     */
    public String upload(Path local, String remoteName) throws IOException {
        sftp.put(local, remoteName);
        return remoteSha256(remoteName);
    }

    /**
     * Copies {@code remoteName} from the server to a local file (replacing it), hashing the bytes as they
     * are written.
     *
     * @param remoteName the name relative to the server directory
     * @param local      the file to write
     * @return the hash of the bytes written, {@code "sha256:<hex>"}
     * @throws IOException if the transfer or the write fails
     */
    public String download(String remoteName, Path local) throws IOException {
        MessageDigest digest = WireTransferBenchmark.digest();
        byte[] buf = new byte[COPY_BUFFER];
        try (InputStream in = sftp.read(remoteName);
             FileChannel out = FileChannel.open(local, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                     StandardOpenOption.TRUNCATE_EXISTING)) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                digest.update(buf, 0, n);
                ByteBuffer b = ByteBuffer.wrap(buf, 0, n);
                while (b.hasRemaining()) {
                    out.write(b);
                }
            }
        }
        return "sha256:" + HexFormat.of().formatHex(digest.digest());
    }

    /**
     * Asks the server (SFTP {@code check-file-name}, whole file as one block) for the SHA-256 of a
     * remote file; the server reads the file to compute it.
     *
     * @param remoteName the name relative to the server directory
     * @return {@code "sha256:<hex>"}
     * @throws IOException if the server refuses or fails the request
     */
    public String remoteSha256(String remoteName) throws IOException {
        CheckFileNameExtension check = sftp.getExtension(CheckFileNameExtension.class);
        if (!check.isSupported()) {
            throw new IOException("the SFTP server does not offer check-file-name");
        }
        Map.Entry<String, Collection<byte[]>> r = check.checkFileName(remoteName, List.of("sha256"), 0, 0, 0);
        Iterator<byte[]> hashes = r.getValue().iterator();
        if (!"sha256".equalsIgnoreCase(r.getKey()) || !hashes.hasNext()) {
            throw new IOException("unexpected check-file-name answer: " + r.getKey());
        }
        return "sha256:" + HexFormat.of().formatHex(hashes.next());
    }

    /**
     * Describes the negotiated SSH algorithms, e.g. {@code "chacha20-poly1305@openssh.com/aead c->s,
     * chacha20-poly1305@openssh.com/aead s->c, compression none"} (MINA 2.20's default preference here).
     *
     * @return a one-line description for benchmark output
     */
    public String negotiated() {
        return session.getNegotiatedKexParameter(KexProposalOption.C2SENC) + "/"
                + session.getNegotiatedKexParameter(KexProposalOption.C2SMAC) + " c->s, "
                + session.getNegotiatedKexParameter(KexProposalOption.S2CENC) + "/"
                + session.getNegotiatedKexParameter(KexProposalOption.S2CMAC) + " s->c, compression "
                + session.getNegotiatedKexParameter(KexProposalOption.C2SCOMP);
    }

    /**
     * The child's GC log ({@code -Xlog:gc}), from which a caller can read its peak heap.
     *
     * @return the path of the log; it exists once the child has started
     */
    public Path childGcLog() {
        return baseDir.resolve("sftp-server.gc.log");
    }

    /**
     * Closes the SFTP channel and session, stops the client and stops the child (closing its standard
     * input, then killing it if it has not exited within 10 s).
     *
     * @throws IOException if closing the SFTP channel fails (the child is stopped regardless)
     */
    @Override
    public void close() throws IOException {
        try {
            sftp.close();
            session.close();
        } finally {
            client.stop();
            stopChild(child);
        }
    }

    private static int awaitPort(Process child, Path portFile, Path log) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(portFile)) {
            if (!child.isAlive() || System.nanoTime() > deadline) {
                throw new IOException("the SFTP server child did not start; its log:\n"
                        + (Files.exists(log) ? Files.readString(log) : "(none)"));
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for the SFTP server child", e);
            }
        }
        return Integer.parseInt(Files.readString(portFile, StandardCharsets.US_ASCII).trim());
    }

    private static PublicKey hostKey(Path baseDir) throws IOException {
        Iterator<KeyPair> keys = hostKeyProvider(baseDir).loadKeys(null).iterator();
        if (!keys.hasNext()) {
            throw new IOException("the SFTP server child wrote no host key");
        }
        return keys.next().getPublic();
    }

    private static SimpleGeneratorHostKeyProvider hostKeyProvider(Path baseDir) {
        return new SimpleGeneratorHostKeyProvider(baseDir.resolve("sftp-hostkey.ser"));
    }

    private static void stopChild(Process child) {
        try {
            child.getOutputStream().close();
            if (!child.waitFor(10, TimeUnit.SECONDS)) {
                child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (IOException e) {
            child.destroyForcibly();
        } catch (InterruptedException e) {
            child.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The child side: {@code --sftp-server PORTFILE DIR} runs the SFTP server on a free loopback port
     * until standard input is closed.
     *
     * @param args {@code --sftp-server}, the port file to write, the directory to serve
     * @throws Exception if the server cannot start
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 3 || !args[0].equals("--sftp-server")) {
            throw new IllegalArgumentException("usage: SftpHarness --sftp-server PORTFILE DIR");
        }
        Path portFile = Path.of(args[1]);
        Path dir = Path.of(args[2]);
        String password = System.getenv(PASSWORD_ENV);
        if (password == null || password.isEmpty()) {
            throw new IllegalStateException(PASSWORD_ENV + " is not set");
        }
        SimpleGeneratorHostKeyProvider hostKeys = hostKeyProvider(portFile.getParent());
        hostKeys.loadKeys(null);
        SshServer server = SshServer.setUpDefaultServer();
        server.setHost("127.0.0.1");
        server.setPort(0);
        server.setKeyPairProvider(hostKeys);
        server.setPasswordAuthenticator((user, pw, s) -> USER.equals(user) && password.equals(pw));
        server.setFileSystemFactory(new VirtualFileSystemFactory(dir));
        server.setSubsystemFactories(List.of(new SftpSubsystemFactory()));
        server.start();
        try {
            Path tmp = portFile.resolveSibling(portFile.getFileName() + ".tmp");
            Files.writeString(tmp, Integer.toString(server.getPort()), StandardCharsets.US_ASCII);
            Files.move(tmp, portFile, StandardCopyOption.ATOMIC_MOVE);
            System.in.transferTo(OutputStream.nullOutputStream());
        } finally {
            server.stop(true);
        }
    }
}
