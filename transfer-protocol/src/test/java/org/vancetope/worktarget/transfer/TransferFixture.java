package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import java.io.IOException;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.vancetope.worktarget.core.transfer.FootTargetResolver;
import org.vancetope.worktarget.core.transfer.RootDirTargetResolver;
import org.vancetope.worktarget.core.transfer.TransferAttrs;
import org.vancetope.worktarget.core.transfer.TransferCapability;
import org.vancetope.worktarget.core.transfer.TransferConnection;
import org.vancetope.worktarget.core.transfer.TransferEndpoint;
import org.vancetope.worktarget.core.transfer.TransferFrame;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferResult;
import org.vancetope.worktarget.core.transfer.TransferScope;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.core.transfer.TransferSide;
import org.vancetope.worktarget.testkit.InMemoryFramePair;
import org.vancetope.worktarget.testfixtures.ManualTime;
import org.vancetope.worktarget.testkit.ManualTransferScheduler;
import org.vancetope.worktarget.spi.FrameChannel;

/**
 * A Brain and a Foot endpoint on one file system (Jimfs, or a directory on the real disk), connected by
 * a manual in-memory pair (Brain on the left, Foot on the right), with the JSON codec on the wire.
 * Every frame each side sent is recorded.
 */
final class TransferFixture implements AutoCloseable {
    static final TransferScope SCOPE = new TransferScope("acme", "proj");

    final FileSystem fs;
    /** The top of this fixture's tree: {@code /} on Jimfs, the given directory on the disk. */
    final Path top;
    private final boolean ownsFileSystem;
    final ManualTime time = new ManualTime();
    final Path brainWorkspace;
    final Path footRoot;
    final Path footProject;
    final Map<String, Path> rootDirs = new ConcurrentHashMap<>();
    final TransferEndpoint brain;
    final TransferEndpoint foot;
    final InMemoryFramePair<TransferFrame> pair;
    final TransferConnection brainConn;
    final TransferConnection footConn;
    final List<TransferFrame> sentByBrain = Collections.synchronizedList(new ArrayList<>());
    final List<TransferFrame> sentByFoot = Collections.synchronizedList(new ArrayList<>());
    final List<String> progress = Collections.synchronizedList(new ArrayList<>());
    /** When set, frames reaching the Foot are only recorded (the test plays the Foot). */
    volatile boolean footSilent;
    /** When set, frames reaching the Brain are only recorded (the test plays the Brain). */
    volatile boolean brainSilent;

    TransferFixture() throws IOException {
        this(Configuration.unix(), TransferSettings.defaults(), 16);
    }

    TransferFixture(TransferSettings settings) throws IOException {
        this(Configuration.unix(), settings, 16);
    }

    TransferFixture(Configuration config, TransferSettings settings, int highWaterMark) throws IOException {
        this(config, settings, highWaterMark, false);
    }

    TransferFixture(Configuration config, TransferSettings settings, int highWaterMark, boolean threaded)
            throws IOException {
        this(config, settings, highWaterMark, threaded, Set.of());
    }

    /** A fixture whose connection negotiated transfer capabilities on both ends. */
    TransferFixture(Configuration config, TransferSettings settings, int highWaterMark, boolean threaded,
                    Set<TransferCapability> capabilities) throws IOException {
        this(config, settings, highWaterMark, threaded, capabilities, UnaryOperator.identity());
    }

    /**
     * A fixture whose Brain sends through {@code brainChannel} applied to its end of the pair (a test's
     * channel that misbehaves in a particular way).
     */
    TransferFixture(Configuration config, TransferSettings settings, int highWaterMark, boolean threaded,
                    Set<TransferCapability> capabilities, UnaryOperator<FrameChannel<TransferFrame>> brainChannel)
            throws IOException {
        this(config, settings, highWaterMark, threaded, capabilities, brainChannel, Runnable::run);
    }

    /**
     * A fixture whose endpoints run their senders and file work on {@code executor} (the default runs
     * them on the thread that asks), as a server's and a client's pools do.
     */
    TransferFixture(Configuration config, TransferSettings settings, int highWaterMark, boolean threaded,
                    Set<TransferCapability> capabilities, UnaryOperator<FrameChannel<TransferFrame>> brainChannel,
                    Executor executor) throws IOException {
        this(Jimfs.newFileSystem(config.toBuilder().setAttributeViews("basic", "owner", "posix", "unix").build())
                .getPath("/"), true, settings, highWaterMark, threaded, capabilities, brainChannel, executor);
    }

    /**
     * A fixture in a directory of the real disk.
     *
     * @param dir an empty directory
     * @return the fixture
     * @throws IOException when the directories cannot be made
     */
    static TransferFixture onDisk(Path dir) throws IOException {
        return new TransferFixture(dir, false, TransferSettings.defaults(), 16, false, Set.of(), UnaryOperator.identity(),
                Runnable::run);
    }

    /** A fixture in a directory of the real disk whose connection negotiated transfer capabilities. */
    static TransferFixture onDisk(Path dir, TransferSettings settings, Set<TransferCapability> capabilities)
            throws IOException {
        return new TransferFixture(dir, false, settings, 16, false, capabilities, UnaryOperator.identity(),
                Runnable::run);
    }

    private TransferFixture(Path top, boolean ownsFileSystem, TransferSettings settings, int highWaterMark,
                            boolean threaded, Set<TransferCapability> capabilities,
                            UnaryOperator<FrameChannel<TransferFrame>> brainChannel, Executor executor)
            throws IOException {
        this.top = top;
        this.fs = top.getFileSystem();
        this.ownsFileSystem = ownsFileSystem;
        brainWorkspace = Files.createDirectories(top.resolve("brain/ws"));
        footRoot = top.resolve("home/u/.vancetope/foot");
        footProject = Files.createDirectories(footRoot.resolve("acme/proj"));
        rootDirs.put("uploads", Files.createDirectories(brainWorkspace.resolve("uploads")));
        rootDirs.put("reports", Files.createDirectories(brainWorkspace.resolve("reports")));
        TransferListener listener = new TransferListener() {
            @Override
            public void onProgress(String transferId, Role role, long bytesDone, long totalBytes) {
                progress.add(role + ":" + bytesDone + "/" + totalBytes);
            }

            @Override
            public void onDirectoryProgress(String transferId, Role role, int filesDone, int filesTotal, long bytesDone,
                                            long totalBytes) {
                progress.add("dir " + role + ":" + filesDone + "/" + filesTotal + " " + bytesDone + "/" + totalBytes);
            }
        };
        brain = TransferEndpoint.builder(TransferSide.BRAIN).settings(settings)
                .resolver(new RootDirTargetResolver((scope, dir) -> Optional.ofNullable(rootDirs.get(dir))))
                .clock(time.clock()).scheduler(ManualTransferScheduler.on(time)).listener(listener).executor(executor)
                .build();
        foot = TransferEndpoint.builder(TransferSide.FOOT).settings(settings)
                .resolver(FootTargetResolver.at(footRoot))
                .clock(time.clock()).scheduler(ManualTransferScheduler.on(time)).listener(listener).executor(executor)
                .build();
        InMemoryFramePair.Builder<TransferFrame> b = InMemoryFramePair.<TransferFrame>builder()
                .highWaterMark(highWaterMark).wire(WireBytes.encoder(capabilities.contains(TransferCapability.BINARY)), WireBytes::decode);
        pair = (threaded ? b.threaded() : b).build();
        brainConn = brain.attach(brainChannel.apply(pair.left()), SCOPE, capabilities);
        footConn = foot.attach(pair.right(), SCOPE, capabilities);
        pair.left().onReceive(brainConn::onFrame).onClose(brainConn::onClose);
        pair.right().onReceive(footConn::onFrame).onClose(footConn::onClose);
        // Record what each side sends by wrapping delivery.
        pair.left().onReceive(f -> {
            sentByFoot.add(f);
            if (!brainSilent) {
                brainConn.onFrame(f);
            }
        });
        pair.right().onReceive(f -> {
            sentByBrain.add(f);
            if (!footSilent) {
                footConn.onFrame(f);
            }
        });
    }

    /** The Brain sends {@code src}, a file in a directory of this fixture, confined to that directory. */
    CompletableFuture<TransferResult> send(Path src, String target, String dirName, TransferAttrs attrs) {
        return brainConn.send(src.getParent(), src.getFileName().toString(), target, dirName, attrs);
    }

    static byte[] randomBytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    Path brainFile(String dir, String rel, byte[] content) throws IOException {
        Path p = rootDirs.get(dir).resolve(rel);
        Files.createDirectories(p.getParent());
        return Files.write(p, content);
    }

    Path footFile(String rel, byte[] content) throws IOException {
        Path p = footProject.resolve(rel);
        Files.createDirectories(p.getParent());
        return Files.write(p, content);
    }

    void deliverAll() {
        pair.deliverAll();
    }

    void advance(Duration d) {
        time.advance(d);
        pair.deliverAll();
    }

    /** Every file whose name marks it as a staging file, anywhere. */
    List<Path> stagingFiles() throws IOException {
        try (Stream<Path> s = Files.walk(top)) {
            return s.filter(p -> p.getFileName() != null && p.getFileName().toString().endsWith(".part")).toList();
        }
    }

    void assertClean() throws IOException {
        assertThat(brain.pendingSends()).as("brain pending sends").isZero();
        assertThat(brain.pendingReceives()).as("brain pending receives").isZero();
        assertThat(foot.pendingSends()).as("foot pending sends").isZero();
        assertThat(foot.pendingReceives()).as("foot pending receives").isZero();
        assertThat(stagingFiles()).as("staging files").isEmpty();
        pair.assertNoFailures();
    }

    <T extends TransferFrame> List<T> framesOf(List<TransferFrame> frames, Class<T> type) {
        synchronized (frames) {
            return frames.stream().filter(type::isInstance).map(type::cast).toList();
        }
    }

    static TransferResult done(java.util.concurrent.CompletableFuture<TransferResult> f) {
        assertThat(f).as("transfer result").isDone();
        return f.join();
    }

    @Override
    public void close() throws IOException {
        pair.close();
        brain.close();
        foot.close();
        if (ownsFileSystem) {
            fs.close();
        }
    }
}
