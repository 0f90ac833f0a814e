package org.vancetope.worktarget.cluster.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback port where nothing listens until {@link #open()}, and which then relays every connection
 * to a target port: a Redis that one client cannot reach yet while others already use it.
 */
final class LatePort implements AutoCloseable {
    private final int port;
    private final int target;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile ServerSocket server;

    private LatePort(int port, int target) {
        this.port = port;
        this.target = target;
    }

    /** A free port, closed for now, that will relay to {@code target}. */
    static LatePort to(int target) throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return new LatePort(s.getLocalPort(), target);
        }
    }

    int port() {
        return port;
    }

    /** Starts listening and relaying. */
    void open() throws IOException {
        ServerSocket s = new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
        server = s;
        Thread accept = new Thread(() -> {
            while (!s.isClosed()) {
                try {
                    Socket in = s.accept();
                    Socket out = new Socket(InetAddress.getLoopbackAddress(), target);
                    sockets.add(in);
                    sockets.add(out);
                    pump(in, out);
                    pump(out, in);
                } catch (IOException e) {
                    return;     // closed
                }
            }
        }, "late-port-" + port);
        accept.setDaemon(true);
        accept.start();
    }

    private static void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                in.transferTo(out);
            } catch (IOException e) {
                // one side closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "late-port-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // already closed
        }
    }

    @Override
    public void close() {
        if (server != null) {
            closeQuietly(server);
        }
        sockets.forEach(LatePort::closeQuietly);
    }
}
