package org.vancetope.worktarget.testfixtures;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * HTTP/1.1 on a raw socket, for tests of what a server does with connections that a client library would
 * hide: connect from a chosen loopback address (Linux answers every {@code 127.x.y.z}), send bytes, read one
 * answer (its head and a {@code Content-Length} body) while the connection stays open, or everything until
 * the server closes. Every read is bounded by the socket timeout set at connect time.
 */
public final class RawHttp {
    /** The last four bytes of a head, CR LF CR LF, as one int. */
    private static final int END_OF_HEAD = 0x0D0A0D0A;

    private RawHttp() {
    }

    /**
     * Opens a connection from a local address of the loopback network.
     *
     * @param port the server's port on 127.0.0.1
     * @param localIp the local address, e.g. {@code "127.0.0.2"}
     * @param readTimeoutMs the bound of every read on it
     * @return the connected socket
     * @throws IOException when it cannot connect
     */
    public static Socket connectFrom(int port, String localIp, int readTimeoutMs) throws IOException {
        Socket s = new Socket("127.0.0.1", port, InetAddress.getByName(localIp), 0);
        s.setSoTimeout(readTimeoutMs);
        return s;
    }

    /**
     * Writes text (UTF-8) and flushes.
     *
     * @param s the socket
     * @param text what to send
     * @throws IOException when writing fails
     */
    public static void send(Socket s, String text) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /**
     * Reads one answer: its head and as many body bytes as its {@code Content-Length} says (none without one),
     * leaving the connection open.
     *
     * @param s the socket
     * @return the answer as text
     * @throws IOException when the connection closes or times out first
     */
    public static String readOne(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        int last4 = 0;
        while (last4 != END_OF_HEAD) {
            if ((c = in.read()) < 0) {
                throw new IOException("the connection closed before the end of an answer's head: "
                        + b.toString(StandardCharsets.UTF_8));
            }
            b.write(c);
            last4 = (last4 << 8) | c;
        }
        String head = b.toString(StandardCharsets.UTF_8);
        long length = 0;
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Long.parseLong(line.substring("content-length:".length()).trim());
            }
        }
        for (long i = 0; i < length; i++) {
            if ((c = in.read()) < 0) {
                throw new IOException("the connection closed inside an answer's body: " + b.toString(StandardCharsets.UTF_8));
            }
            b.write(c);
        }
        return b.toString(StandardCharsets.UTF_8);
    }

    /**
     * Reads everything until the server closes the connection; a reset counts as closed.
     *
     * @param s the socket
     * @return what arrived, as text (empty for a connection closed at once)
     * @throws IOException when a read times out
     */
    public static String readUntilClosed(Socket s) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        InputStream in = s.getInputStream();
        byte[] buf = new byte[4096];
        int n;
        try {
            while ((n = in.read(buf)) >= 0) {
                b.write(buf, 0, n);
            }
        } catch (SocketException reset) {
            // closed with unread input: a reset on some systems, closed all the same
        }
        return b.toString(StandardCharsets.UTF_8);
    }
}
