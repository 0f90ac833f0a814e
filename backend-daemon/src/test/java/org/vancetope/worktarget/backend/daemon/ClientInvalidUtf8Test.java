package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The client connector's side of RFC 6455 §8.1: a text frame from the server that is not valid UTF-8
 * makes the client close the connection with 1007. The server here is a bare socket, since no
 * WebSocket server library sends such a frame.
 */
class ClientInvalidUtf8Test {
    private static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

    /** What the test's bare server does after the upgrade and the client's hello. */
    private interface Server {
        void serve(DataInputStream in, OutputStream out) throws Exception;
    }

    /**
     * A daemon client connects to a bare socket server, which answers the upgrade, reads the hello and
     * then runs {@code server}; the client is returned closed after {@code after} ran.
     */
    private static void withClient(Server server, java.util.function.Consumer<WorkTargetClient> after)
            throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            listener.setSoTimeout(10_000);
            WorkTargetClient client = WorkTargetClient.builder()
                    .uri(URI.create("ws://127.0.0.1:" + listener.getLocalPort() + "/worktarget/v1")).token("t")
                    .daemon("acme", "proj", "box-1").tools(List.of()).reconnectBackoff(Duration.ofSeconds(30),
                            Duration.ofSeconds(30)).build();
            try {
                client.start();
                try (Socket s = listener.accept()) {
                    s.setSoTimeout(10_000);
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    OutputStream out = s.getOutputStream();
                    upgrade(in, out);
                    assertThat(new String(readFrame(in, 1), StandardCharsets.UTF_8)).contains("\"type\":\"hello\"");
                    server.serve(in, out);
                }
                after.accept(client);
            } finally {
                client.close();
            }
        }
    }

    private static void sendText(OutputStream out, byte[] frame) throws IOException {
        out.write(0x81);
        out.write(frame.length);
        out.write(frame);
        out.flush();
    }

    private static int closeCode(byte[] close) {
        return ((close[0] & 0xFF) << 8) | (close[1] & 0xFF);
    }

    @Test
    void aServerTextFrameThatIsNotValidUtf8IsAnsweredWithClose1007() throws Exception {
        withClient((in, out) -> {
            byte[] bad = "{\"type\":\"welcome\",\"x\":\"?\"}".getBytes(StandardCharsets.US_ASCII);
            bad[bad.length - 3] = (byte) 0xC0;
            sendText(out, bad);
            assertThat(closeCode(readFrame(in, 8))).isEqualTo(1007);
        }, client -> { });
    }

    @Test
    void aWelcomeOfAnotherProtocolVersionEndsTheClientForGoodWith4426() throws Exception {
        withClient((in, out) -> {
            sendText(out, ("{\"type\":\"welcome\",\"protocolVersion\":2,\"connectionId\":\"c-1\","
                    + "\"capabilities\":[],\"limits\":{}}").getBytes(StandardCharsets.US_ASCII));
            assertThat(closeCode(readFrame(in, 8))).isEqualTo(4426);
        }, client -> {
            assertThat(client.isConnected()).isFalse();
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> client.terminated().get(10,
                            java.util.concurrent.TimeUnit.SECONDS))
                    .hasCauseInstanceOf(ServerRefusedException.class)
                    .hasMessageContaining("protocol version 2");
        });
    }

    private static void upgrade(DataInputStream in, OutputStream out) throws Exception {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
            head.write(in.readUnsignedByte());
        }
        String key = null;
        for (String line : head.toString(StandardCharsets.US_ASCII).split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("sec-websocket-key:")) {
                key = line.substring(line.indexOf(':') + 1).trim();
            }
        }
        String accept = Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-1")
                .digest((key + GUID).getBytes(StandardCharsets.US_ASCII)));
        out.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: " + accept + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /** Reads client frames until one with the opcode arrives; returns its unmasked payload. */
    private static byte[] readFrame(DataInputStream in, int opcode) throws IOException {
        SocketPeer.Frame f;
        do {
            f = SocketPeer.readFrame(in);
        } while (f.opcode() != opcode);
        return f.payload();
    }
}
