package org.vancetope.worktarget.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP relay on loopback that carries each direction of each connection at no more than a fixed
 * rate: the slow link of the zstd rows of {@link WireTransferBenchmark}. Bytes are forwarded in pieces
 * of at most 16 KiB, each after the previous piece's time at that rate has passed (a burst of one
 * piece at most, no credit saved up while idle). A full receiver blocks the relay, so back-pressure
 * passes through as on a real link.
 */
final class ThrottledLink implements AutoCloseable {
    private static final int PIECE = 16 * 1024;

    private final ServerSocket listener;
    private final int targetPort;
    private final double bytesPerSecond;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    private ThrottledLink(int targetPort, double bytesPerSecond) throws IOException {
        this.listener = new ServerSocket();
        this.listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        this.targetPort = targetPort;
        this.bytesPerSecond = bytesPerSecond;
    }

    /**
     * Starts a relay to a port on loopback.
     *
     * @param targetPort where connections go
     * @param bytesPerSecond the rate of each direction of each connection
     * @return the running relay; connect to {@link #port()}
     * @throws IOException when it cannot listen
     */
    static ThrottledLink start(int targetPort, double bytesPerSecond) throws IOException {
        ThrottledLink link = new ThrottledLink(targetPort, bytesPerSecond);
        Thread accept = new Thread(link::acceptLoop, "throttled-link-accept");
        accept.setDaemon(true);
        accept.start();
        return link;
    }

    int port() {
        return listener.getLocalPort();
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                for (Socket s : List.of(client, server)) {
                    s.setTcpNoDelay(true);
                    sockets.add(s);
                }
                pump(client, server, "up");
                pump(server, client, "down");
            } catch (IOException e) {
                return;     // closed
            }
        }
    }

    private void pump(Socket from, Socket to, String name) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[PIECE];
            long next = System.nanoTime();
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) > 0) {
                    long now = System.nanoTime();
                    while (next > now) {
                        LockSupport.parkNanos(next - now);
                        now = System.nanoTime();
                    }
                    out.write(buf, 0, n);
                    next = Math.max(next, now) + (long) (n * 1e9 / bytesPerSecond);
                }
            } catch (IOException e) {
                // one end closed: close both
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "throttled-link-" + name);
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        sockets.forEach(ThrottledLink::closeQuietly);
    }
}
