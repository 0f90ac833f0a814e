package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a connection reset costs in the log of a real {@code serve}, run as a child JVM with our
 * loggers at DEBUG: peers reset their connection (RST, by closing with {@code SO_LINGER} 0) in the
 * middle of an upgrade request, of an admin request, and on an upgraded daemon connection. Each reset
 * may log one line, at DEBUG; never a WARN, never a stack trace.
 */
class ConnectionResetLogTest {
    private static final Pattern WS_PORT = Pattern.compile("listening on ws://127\\.0\\.0\\.1:(\\d+)/worktarget/v1");
    private static final Pattern ADMIN_PORT = Pattern.compile("Admin API on http://127\\.0\\.0\\.1:(\\d+)/admin/v1/");
    private static final String DAEMON_TOKEN = "daemon-token-reset-log";
    private static final int RESETS = 20;

    @TempDir
    Path base;
    private ChildJvm serve;
    private int wsPort;
    private int adminPort;

    @BeforeEach
    void startServe() throws IOException {
        Path workspace = Files.createDirectories(base.resolve("workspace"));
        Path tokens = base.resolve("tokens.json");
        Files.writeString(tokens, "{\"tokens\":[{\"token\":\"" + DAEMON_TOKEN + "\",\"subject\":\"box\",\"tenant\":\"acme\","
                + "\"projects\":[\"proj\"]}]}", StandardCharsets.UTF_8);
        serve = ChildJvm.start("serve", base.resolve("serve.log"),
                List.of("-Dorg.slf4j.simpleLogger.log.org.vancetope=debug"),
                List.of("serve", "--workspace", workspace.toString(), "--tokens", tokens.toString(), "--port", "0",
                        "--admin-token", "admin-token-reset-log"));
        wsPort = Integer.parseInt(serve.awaitLog(WS_PORT));
        adminPort = Integer.parseInt(serve.awaitLog(ADMIN_PORT));
    }

    @AfterEach
    void stopServe() {
        serve.close();
    }

    /** Sends some bytes, then resets the connection instead of closing it. */
    private static void reset(int port, String partial) throws IOException {
        Socket s = new Socket("127.0.0.1", port);
        s.getOutputStream().write(partial.getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        s.setSoLinger(true, 0);
        s.close();
    }

    /** The log after a mark, once it has {@code lines} lines that mention a reset (bounded wait). */
    private String logAfter(int mark, int resets) {
        long end = System.nanoTime() + ChildJvm.WAIT.toNanos();
        while (true) {
            String tail = serve.log().substring(mark);
            long seen = tail.lines().filter(l -> l.contains("Connection reset")).count();
            if (seen >= resets) {
                return tail;
            }
            if (System.nanoTime() > end) {
                throw new AssertionError("serve logged " + seen + " of " + resets + " resets within " + ChildJvm.WAIT
                        + "; its log since the mark:\n" + tail);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    private static void assertQuiet(String tail) {
        assertThat(tail.lines()).as("lines since the mark:\n%s", tail)
                .noneMatch(l -> l.contains(" WARN ") || l.contains(" ERROR "))
                .noneMatch(l -> l.startsWith("\tat ") || l.startsWith("Caused by") || l.startsWith("java."));
        assertThat(tail.lines().filter(l -> l.contains("Connection reset")))
                .allMatch(l -> l.contains(" DEBUG "))
                .allMatch(l -> l.length() < 400);
    }

    /** Every line the I/O threads logged since the mark is a reset line, one per reset. */
    private static void assertOneLinePerReset(String tail, int resets) {
        List<String> io = tail.lines().filter(l -> l.contains(" [worktarget-io-") || l.contains(" [worktarget-admin-io-"))
                .toList();
        assertThat(io).as("what the I/O threads logged for %d resets; all lines:\n%s", resets, tail).hasSize(resets)
                .allMatch(l -> l.contains("Connection reset"));
        System.out.printf("%d resets: %d lines, %d bytes (%d per reset)%n", resets, io.size(),
                io.stream().mapToInt(l -> l.length() + 1).sum(), io.stream().mapToInt(l -> l.length() + 1).sum() / resets);
    }

    @Test
    void aResetDuringTheUpgradeRequestLogsOneDebugLine() throws Exception {
        int mark = serve.log().length();
        for (int i = 0; i < RESETS; i++) {
            reset(wsPort, "GET /worktarget/v1 HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        }
        String tail = logAfter(mark, RESETS);
        assertQuiet(tail);
        assertOneLinePerReset(tail, RESETS);
    }

    @Test
    void aResetDuringAnAdminRequestLogsOneDebugLine() throws Exception {
        int mark = serve.log().length();
        for (int i = 0; i < RESETS; i++) {
            reset(adminPort, "POST /admin/v1/call HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        }
        String tail = logAfter(mark, RESETS);
        assertQuiet(tail);
        assertOneLinePerReset(tail, RESETS);
    }

    @Test
    void aResetOfAnUpgradedDaemonLogsOneDebugLineBesidesGoingOffline() throws Exception {
        URI uri = URI.create("ws://127.0.0.1:" + wsPort + "/worktarget/v1");
        SocketPeer p = SocketPeer.connect(uri, DAEMON_TOKEN, "daemon");
        p.sendText("{\"type\":\"hello\",\"protocolVersion\":1,\"profile\":\"daemon\",\"tenant\":\"acme\","
                + "\"project\":\"proj\",\"daemonName\":\"box\",\"tools\":[]}");
        assertThat(p.next().text()).contains("\"welcome\"");
        serve.awaitLog(Pattern.compile("(Daemon acme/proj/box online)"));
        int mark = serve.log().length();
        p.resetConnection();
        String tail = logAfter(mark, 1);
        serve.awaitLog(Pattern.compile("(Daemon acme/proj/box offline)"));
        tail = serve.log().substring(mark);
        assertQuiet(tail);
        assertThat(tail.lines().filter(l -> l.contains("Connection reset"))).hasSize(1);
    }

    @Test
    void aFloodOfRefusedUpgradesLogsAtMostOneInfoLinePerTenSeconds() throws Exception {
        int mark = serve.log().length();
        long start = System.nanoTime();
        for (int i = 0; i < RESETS; i++) {
            try (Socket s = new Socket("127.0.0.1", wsPort)) {
                s.setSoTimeout(15_000);
                s.getOutputStream().write(("GET /worktarget/v1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer wrong"
                        + "\r\nX-WorkTarget-Profile: daemon\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                String head = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                assertThat(head).startsWith("HTTP/1.1 401");
            }
        }
        long windows = 1 + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start) / 10;
        long end = System.nanoTime() + ChildJvm.WAIT.toNanos();
        List<String> refused;
        do {
            refused = serve.log().substring(mark).lines().filter(l -> l.contains("Refused upgrade")).toList();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        } while (refused.size() < RESETS && System.nanoTime() < end);
        assertThat(refused).as("refusal lines").hasSize(RESETS);
        assertThat(refused.stream().filter(l -> l.contains(" INFO "))).as("INFO refusal lines in %d window(s)", windows)
                .hasSizeBetween(1, (int) windows);
        assertThat(refused.stream().filter(l -> !l.contains(" INFO "))).allMatch(l -> l.contains(" DEBUG "));
    }
}
