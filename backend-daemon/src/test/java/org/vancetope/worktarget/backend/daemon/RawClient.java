package org.vancetope.worktarget.backend.daemon;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A protocol-level test peer on the JDK's own WebSocket implementation (independent of ours): sends
 * raw frames and collects what the server sends.
 */
final class RawClient implements WebSocket.Listener, AutoCloseable {
    private final BlockingQueue<String> texts = new LinkedBlockingQueue<>();
    private final CompletableFuture<Integer> closed = new CompletableFuture<>();
    private final StringBuilder partial = new StringBuilder();
    private WebSocket ws;

    private RawClient() {
    }

    /** Connects; fails with the JDK's handshake exception when the upgrade is refused. */
    static RawClient connect(URI uri, String token, String profile) throws Exception {
        WebSocket.Builder b = HttpClient.newHttpClient().newWebSocketBuilder().connectTimeout(Duration.ofSeconds(10));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        if (profile != null) {
            b.header("X-WorkTarget-Profile", profile);
        }
        RawClient c = new RawClient();
        c.ws = b.buildAsync(uri, c).get(10, TimeUnit.SECONDS);
        return c;
    }

    /** Connects as a daemon of acme/proj and completes the hello. */
    static RawClient daemon(URI uri, String name, String toolsJson) throws Exception {
        RawClient c = connect(uri, TestServer.DAEMON_TOKEN, "daemon");
        c.send("{\"type\":\"hello\",\"protocolVersion\":1,\"profile\":\"daemon\",\"tenant\":\"acme\",\"project\":\"proj\","
                + "\"daemonName\":\"" + name + "\",\"tools\":" + toolsJson + "}");
        String welcome = c.next();
        if (!welcome.contains("\"welcome\"")) {
            throw new AssertionError("expected welcome, got " + welcome);
        }
        return c;
    }

    static final String READ_TOOL = "[{\"name\":\"client_file_read\",\"paramsSchema\":{\"type\":\"object\","
            + "\"properties\":{\"path\":{\"type\":\"string\"}}}}]";

    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
        partial.append(data);
        if (last) {
            texts.add(partial.toString());
            partial.setLength(0);
        }
        webSocket.request(1);
        return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
        closed.complete(statusCode);
        return null;
    }

    @Override
    public void onError(WebSocket webSocket, Throwable error) {
        closed.completeExceptionally(error);
    }

    void send(String text) throws Exception {
        ws.sendText(text, true).get(10, TimeUnit.SECONDS);
    }

    void sendBinary(byte[] data) throws Exception {
        ws.sendBinary(ByteBuffer.wrap(data), true).get(10, TimeUnit.SECONDS);
    }

    /** The next text frame, waiting at most 10 s. */
    String next() throws InterruptedException {
        String s = texts.poll(10, TimeUnit.SECONDS);
        if (s == null) {
            throw new AssertionError("no frame within 10 s");
        }
        return s;
    }

    /** The correlation id in a frame. */
    static String correlationId(String frame) {
        int i = frame.indexOf("\"correlationId\":\"") + 17;
        return frame.substring(i, frame.indexOf('"', i));
    }

    int awaitClose() throws Exception {
        return closed.get(10, TimeUnit.SECONDS);
    }

    boolean isOpen() {
        return !closed.isDone() && !ws.isInputClosed();
    }

    @Override
    public void close() {
        ws.abort();
    }
}
