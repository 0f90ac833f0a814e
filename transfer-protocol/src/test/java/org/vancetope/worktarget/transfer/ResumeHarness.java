package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import java.io.IOException;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.vancetope.worktarget.core.transfer.FootTargetResolver;
import org.vancetope.worktarget.core.transfer.RootDirTargetResolver;
import org.vancetope.worktarget.core.transfer.TransferCapability;
import org.vancetope.worktarget.core.transfer.TransferChunk;
import org.vancetope.worktarget.core.transfer.TransferConnection;
import org.vancetope.worktarget.core.transfer.TransferEndpoint;
import org.vancetope.worktarget.core.transfer.TransferFrame;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferResult;
import org.vancetope.worktarget.core.transfer.TransferScope;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.core.transfer.TransferSide;
import org.vancetope.worktarget.testfixtures.ManualTime;
import org.vancetope.worktarget.testkit.InMemoryFramePair;
import org.vancetope.worktarget.testkit.ManualTransferScheduler;

/**
 * A Brain and a Foot endpoint on one Jimfs file system that can be connected again and again (each
 * connection a manual in-memory pair with the codec on the wire), whose connections can be cut after a
 * number of bytes reached the receiver (the Foot for downloads, the Brain for uploads), and whose receiver
 * can be restarted (a new endpoint on the same root).
 */
final class ResumeHarness implements AutoCloseable {
    static final TransferScope SCOPE = new TransferScope("acme", "proj");
    /** The RootDir name uploads go to (every name resolves to {@link #brainDir}). */
    static final String UPLOAD_DIR = "reports";

    final FileSystem fs = Jimfs.newFileSystem(Configuration.unix().toBuilder()
            .setAttributeViews("basic", "owner", "posix", "unix").build());
    final ManualTime time = new ManualTime();
    final Path brainDir;
    final Path footRoot;
    final Path footProject;
    final TransferSettings settings;
    final Set<TransferCapability> capabilities;
    TransferEndpoint brain;
    TransferEndpoint foot;
    /** The bytes the Foot wrote so far, over every connection. */
    final AtomicLong footBytes = new AtomicLong();
    /** The bytes the Brain wrote so far (uploads), over every connection. */
    final AtomicLong brainBytes = new AtomicLong();
    /** Endpoints of processes that "crashed": dropped without close, closed with the harness. */
    private final List<TransferEndpoint> crashed = new ArrayList<>();
    private final List<Link> links = new ArrayList<>();
    /** The Brain's check of a project's disk room for what it receives (default: every file fits). */
    volatile RootDirTargetResolver.Room brainRoom = RootDirTargetResolver.Room.ANY;
    private int connections;

    ResumeHarness(Set<TransferCapability> capabilities) throws IOException {
        this(capabilities, TransferSettings.defaults());
    }

    ResumeHarness(Set<TransferCapability> capabilities, TransferSettings settings) throws IOException {
        this.capabilities = capabilities;
        this.settings = settings;
        brainDir = Files.createDirectories(fs.getPath("/brain/ws/reports"));
        footRoot = fs.getPath("/home/u/.vancetope/foot");
        footProject = Files.createDirectories(footRoot.resolve("acme/proj"));
        brain = newBrain();
        foot = newFoot();
    }

    private TransferEndpoint newBrain() {
        return TransferEndpoint.builder(TransferSide.BRAIN).settings(settings)
                .resolver(new RootDirTargetResolver((scope, dir) -> Optional.of(brainDir),
                        (scope, bytes) -> brainRoom.take(scope, bytes)))
                .clock(time.clock()).scheduler(ManualTransferScheduler.on(time)).listener(receiverBytes(brainBytes))
                .build();
    }

    private TransferEndpoint newFoot() {
        return TransferEndpoint.builder(TransferSide.FOOT).settings(settings).resolver(FootTargetResolver.at(footRoot))
                .clock(time.clock()).scheduler(ManualTransferScheduler.on(time)).listener(receiverBytes(footBytes))
                .build();
    }

    private static TransferListener receiverBytes(AtomicLong bytes) {
        return new TransferListener() {
            @Override
            public void onProgress(String transferId, Role role, long bytesDone, long totalBytes) {
                if (role == Role.RECEIVER) {
                    bytes.set(bytesDone);
                }
            }
        };
    }

    /** The receiving process of uploads stops and starts again: a new Brain endpoint on the same RootDir. */
    void restartBrain() {
        brain.close();
        brain = newBrain();
    }

    /**
     * The Brain's process dies without closing anything (SIGKILL): a new Brain endpoint on the same RootDir,
     * the old one dropped as it is (closed only with the harness, after the test).
     */
    void crashBrain() {
        crashed.add(brain);
        brain = newBrain();
    }

    /** The receiving process dies and starts again: a new Foot endpoint on the same root. */
    void restartFoot() {
        foot.close();
        foot = newFoot();
    }

    /** One connection between the Brain and the Foot. */
    final class Link {
        final InMemoryFramePair<TransferFrame> pair;
        final TransferConnection brainConn;
        final TransferConnection footConn;
        final List<TransferFrame> sentByBrain = Collections.synchronizedList(new ArrayList<>());
        final List<TransferFrame> sentByFoot = Collections.synchronizedList(new ArrayList<>());
        /** When set, the test plays the Brain: what the Foot sends is only recorded. */
        volatile boolean brainSilent;
        /** When set, the test plays the Foot: what the Brain sends is only recorded. */
        volatile boolean footSilent;

        Link(String name) {
            boolean binary = capabilities.contains(TransferCapability.BINARY);
            pair = InMemoryFramePair.<TransferFrame>builder().name(name).highWaterMark(16)
                    .wire(WireBytes.encoder(binary), WireBytes::decode)
                    .build();
            TransferEndpoint brainOfLink = brain;
            brainConn = brain.attach(pair.left(), SCOPE, capabilities);
            footConn = foot.attach(pair.right(), SCOPE, capabilities);
            pair.left().onReceive(f -> {
                sentByFoot.add(f);
                if (!brainSilent && !crashed.contains(brainOfLink)) {
                    brainConn.onFrame(f);
                }
            }).onClose(() -> {
                if (!crashed.contains(brainOfLink)) {   // a dead process handles nothing
                    brainConn.onClose();
                }
            });
            pair.right().onReceive(f -> {
                sentByBrain.add(f);
                if (!footSilent) {
                    footConn.onFrame(f);
                }
            }).onClose(footConn::onClose);
        }

        CompletableFuture<TransferResult> send(String source, String target) {
            return brainConn.send(brainDir, source, target, null, null);
        }

        CompletableFuture<TransferResult> resume(String id, String source, String target) {
            return brainConn.resume(id, brainDir, source, target, null, null);
        }

        /** The Brain asks the Foot for its file {@code localPath} into the RootDir at {@code remotePath}. */
        CompletableFuture<TransferResult> upload(String localPath, String remotePath) {
            return brainConn.requestUpload(SCOPE, localPath, UPLOAD_DIR, remotePath, null);
        }

        CompletableFuture<TransferResult> resumeUpload(String id, String localPath, String remotePath) {
            return resumeUpload(SCOPE, id, localPath, remotePath);
        }

        /** {@link #resumeUpload(String, String, String)} by a call of another scope (whose RootDir has the same name). */
        CompletableFuture<TransferResult> resumeUpload(TransferScope scope, String id, String localPath, String remotePath) {
            return brainConn.resumeUpload(id, scope, localPath, UPLOAD_DIR, remotePath, null);
        }

        /** Delivers frames both ways, one at a time, until the Foot wrote at least {@code bytes} or nothing is left. */
        void deliverUntilFootHas(long bytes) {
            deliverUntil(footBytes, bytes);
        }

        /** Delivers frames both ways, one at a time, until the Brain wrote at least {@code bytes} or nothing is left. */
        void deliverUntilBrainHas(long bytes) {
            deliverUntil(brainBytes, bytes);
        }

        private void deliverUntil(AtomicLong written, long bytes) {
            while (written.get() < bytes && (pair.deliverNext(pair.left()) || pair.deliverNext(pair.right()))) {
                // one frame per step
            }
        }

        void deliverAll() {
            pair.deliverAll();
        }

        /** The connection drops: frames not delivered yet are lost. */
        void cut() {
            pair.close();
        }

        List<TransferChunk> chunksSent() {
            synchronized (sentByBrain) {
                return sentByBrain.stream().filter(TransferChunk.class::isInstance).map(TransferChunk.class::cast).toList();
            }
        }

        <T extends TransferFrame> List<T> sentByFoot(Class<T> type) {
            synchronized (sentByFoot) {
                return sentByFoot.stream().filter(type::isInstance).map(type::cast).toList();
            }
        }

        <T extends TransferFrame> List<T> sentByBrain(Class<T> type) {
            synchronized (sentByBrain) {
                return sentByBrain.stream().filter(type::isInstance).map(type::cast).toList();
            }
        }
    }

    Link connect() {
        Link l = new Link("c" + (++connections));
        links.add(l);
        return l;
    }

    Path brainFile(String name, byte[] content) throws IOException {
        return Files.write(brainDir.resolve(name), content);
    }

    /** A file in the Foot's project directory, where uploads are read from. */
    Path footFile(String name, byte[] content) throws IOException {
        return Files.write(footProject.resolve(name), content);
    }

    /** Every entry under the Foot's root with a reserved name (staging files, sidecars), anywhere. */
    List<Path> reservedEntries() throws IOException {
        return reservedEntries(footRoot);
    }

    /** Every entry under the Brain's RootDir with a reserved name (what uploads stage and keep), anywhere. */
    List<Path> brainReservedEntries() throws IOException {
        return reservedEntries(brainDir);
    }

    private static List<Path> reservedEntries(Path under) throws IOException {
        try (Stream<Path> s = Files.walk(under)) {
            return s.filter(p -> p.getFileName() != null && p.getFileName().toString().startsWith(".wt-")).toList();
        }
    }

    void assertNothingPending() {
        assertThat(brain.pendingSends()).as("brain pending sends").isZero();
        assertThat(brain.pendingReceives()).as("brain pending receives").isZero();
        assertThat(foot.pendingSends()).as("foot pending sends").isZero();
        assertThat(foot.pendingReceives()).as("foot pending receives").isZero();
        for (Link l : links) {
            l.pair.assertNoFailures();
        }
    }

    /** The capabilities of a resumable connection, with or without the hash trailer. */
    static Set<TransferCapability> caps(boolean trailer) {
        return trailer ? EnumSet.of(TransferCapability.RESUME, TransferCapability.HASH_TRAILER)
                : EnumSet.of(TransferCapability.RESUME);
    }

    /** The wire form of a content's hash, {@code sha256:<hex>}. */
    static String sha256(byte[] b) throws Exception {
        return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    static TransferResult done(CompletableFuture<TransferResult> f) {
        assertThat(f).as("transfer result").isDone();
        return f.join();
    }

    @Override
    public void close() throws IOException {
        links.forEach(l -> l.pair.close());
        brain.close();
        foot.close();
        crashed.forEach(TransferEndpoint::close);
        fs.close();
    }
}
