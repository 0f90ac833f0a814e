package org.vancetope.worktarget.backend.daemon;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Random;

/**
 * A WebSocket peer written on a bare TCP socket, for frames no WebSocket library will send (a text
 * frame whose payload is not valid UTF-8): the upgrade, masked frames out, unmasked frames in.
 */
final class SocketPeer implements AutoCloseable {
    /** A frame as it arrived: opcode and payload. */
    record Frame(int opcode, byte[] payload) {
        String text() {
            return new String(payload, StandardCharsets.UTF_8);
        }

        int closeCode() {
            return ((payload[0] & 0xFF) << 8) | (payload[1] & 0xFF);
        }
    }

    static final int TEXT = 1;
    static final int CLOSE = 8;

    private final Socket socket;
    private final OutputStream out;
    private final DataInputStream in;
    private final Random random = new Random(7);

    private SocketPeer(Socket socket) throws IOException {
        this.socket = socket;
        this.out = socket.getOutputStream();
        this.in = new DataInputStream(socket.getInputStream());
    }

    /** Connects and upgrades with a bearer token and a profile; fails unless the server answers 101. */
    static SocketPeer connect(URI uri, String token, String profile) throws IOException {
        Socket s = new Socket(uri.getHost(), uri.getPort());
        s.setSoTimeout(10_000);
        SocketPeer p = new SocketPeer(s);
        byte[] key = new byte[16];
        p.random.nextBytes(key);
        String target = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        String request = "GET " + target + " HTTP/1.1\r\nHost: " + uri.getHost() + ":" + uri.getPort()
                + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: "
                + Base64.getEncoder().encodeToString(key) + "\r\nAuthorization: Bearer " + token
                + "\r\nX-WorkTarget-Profile: " + profile + "\r\n\r\n";
        p.out.write(request.getBytes(StandardCharsets.US_ASCII));
        p.out.flush();
        String head = p.readHead();
        if (!head.startsWith("HTTP/1.1 101")) {
            s.close();
            throw new IOException("upgrade refused: " + head);
        }
        return p;
    }

    private String readHead() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int matched = 0;
        byte[] end = {'\r', '\n', '\r', '\n'};
        while (matched < 4) {
            int c = in.read();
            if (c < 0) {
                throw new IOException("connection closed during the upgrade");
            }
            b.write(c);
            matched = c == end[matched] ? matched + 1 : (c == '\r' ? 1 : 0);
        }
        return b.toString(StandardCharsets.US_ASCII);
    }

    /** Sends one final, masked frame. */
    void send(int opcode, byte[] payload) throws IOException {
        ByteArrayOutputStream f = new ByteArrayOutputStream();
        f.write(0x80 | opcode);
        int n = payload.length;
        if (n < 126) {
            f.write(0x80 | n);
        } else if (n < 65536) {
            f.write(0x80 | 126);
            f.write(n >>> 8);
            f.write(n);
        } else {
            f.write(0x80 | 127);
            for (int shift = 56; shift >= 0; shift -= 8) {
                f.write((int) ((long) n >>> shift));
            }
        }
        byte[] mask = new byte[4];
        random.nextBytes(mask);
        f.write(mask);
        for (int i = 0; i < n; i++) {
            f.write(payload[i] ^ mask[i & 3]);
        }
        out.write(f.toByteArray());
        out.flush();
    }

    void sendText(String text) throws IOException {
        send(TEXT, text.getBytes(StandardCharsets.UTF_8));
    }

    /** Reads the next frame (fragments are not expected). */
    Frame next() throws IOException {
        return readFrame(in);
    }

    /**
     * Reads one frame from a stream, unmasking it when masked (a client's frames are).
     *
     * @param in the stream
     * @return the frame
     * @throws IOException when the stream fails or ends
     */
    static Frame readFrame(DataInputStream in) throws IOException {
        int b0 = in.readUnsignedByte();
        int b1 = in.readUnsignedByte();
        long n = b1 & 0x7F;
        if (n == 126) {
            n = in.readUnsignedShort();
        } else if (n == 127) {
            n = in.readLong();
        }
        byte[] mask = new byte[4];
        if ((b1 & 0x80) != 0) {
            in.readFully(mask);
        }
        byte[] payload = new byte[Math.toIntExact(n)];
        in.readFully(payload);
        for (int i = 0; i < payload.length; i++) {
            payload[i] ^= mask[i & 3];
        }
        return new Frame(b0 & 0x0F, payload);
    }

    /** Reads frames until a close frame arrives; returns it. */
    Frame awaitClose() throws IOException {
        Frame f;
        do {
            f = next();
        } while (f.opcode() != CLOSE);
        return f;
    }

    /** Resets the connection (RST instead of FIN) by closing with {@code SO_LINGER} 0. */
    void resetConnection() throws IOException {
        socket.setSoLinger(true, 0);
        socket.close();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
