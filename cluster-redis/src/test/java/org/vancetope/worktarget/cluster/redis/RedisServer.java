package org.vancetope.worktarget.cluster.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.vancetope.worktarget.testfixtures.Await;

/**
 * A real {@code redis-server} on a free loopback port, without persistence ({@code --save ""
 * --appendonly no}), for one test class. Skips the test when the binary is missing, unless
 * {@code WORKTARGET_REQUIRE_REDIS=true} (as {@code .ci/run} sets), which makes it fail instead.
 * {@link #stop()} and {@link #start()} again keep the port, as a restarted Redis would.
 */
public final class RedisServer implements AutoCloseable {
    static final String BINARY = System.getenv().getOrDefault("WORKTARGET_REDIS_SERVER", "/usr/bin/redis-server");
    private final int port;
    private final Path dir;
    private Process process;

    private RedisServer(int port, Path dir) {
        this.port = port;
        this.dir = dir;
    }

    /**
     * Starts one, or skips (fails when required) without the binary.
     *
     * @return the running server
     * @throws IOException when it cannot start
     */
    public static RedisServer started() throws IOException {
        RedisServer r = notStarted();
        r.start();
        return r;
    }

    /**
     * One with its port chosen but not started yet (for nodes that start before Redis), or skips as
     * {@link #started()} does.
     *
     * @return the server, to be started with {@link #start()}
     * @throws IOException when no port or directory can be had
     */
    public static RedisServer notStarted() throws IOException {
        boolean present = Files.isExecutable(Path.of(BINARY));
        if ("true".equalsIgnoreCase(System.getenv("WORKTARGET_REQUIRE_REDIS"))) {
            assertThat(present).as("WORKTARGET_REQUIRE_REDIS=true but " + BINARY + " is missing").isTrue();
        }
        assumeTrue(present, "redis-server is not installed at " + BINARY + " (apt-get install redis-server, or set "
                + "WORKTARGET_REDIS_SERVER); the fleet tests need a real Redis");
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        return new RedisServer(port, Files.createTempDirectory("wt-redis"));
    }

    /**
     * The server's port.
     *
     * @return the port on 127.0.0.1
     */
    public int port() {
        return port;
    }

    /**
     * The server's address.
     *
     * @return {@code redis://127.0.0.1:PORT}
     */
    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /**
     * Starts the server on its port and waits until it answers PING.
     *
     * @throws IOException when the process cannot start
     */
    public void start() throws IOException {
        process = new ProcessBuilder(List.of(BINARY, "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--protected-mode", "no"))
                .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
        Await.until("redis-server answers PING on port " + port, this::answersPing);
    }

    /**
     * Stops the server (SIGKILL: no goodbye to its clients) and waits until it is gone.
     *
     * @throws InterruptedException when interrupted while waiting
     */
    public void stop() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
        Await.until("redis-server is gone", () -> !answersPing());
    }

    private boolean answersPing() {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(1000);
            OutputStream out = s.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] b = new byte[7];
            int n = in.readNBytes(b, 0, 7);
            return n == 7 && new String(b, StandardCharsets.US_ASCII).equals("+PONG\r\n");
        } catch (IOException e) {
            return false;
        }
    }

    /** Stops the server and deletes its directory (its log), which would otherwise stay in the temp directory. */
    @Override
    public void close() {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (!Files.isDirectory(dir)) {
            return;     // closed before
        }
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            System.err.println("Could not delete " + dir + ": " + e);
        }
    }
}
