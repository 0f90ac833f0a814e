package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import java.io.IOException;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
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
 * number of bytes reached the Foot, and whose Foot can be restarted (a new endpoint on the same root).
 */
final class ResumeHarness implements AutoCloseable {
    static final TransferScope SCOPE = new TransferScope("acme", "proj");

    final FileSystem fs = Jimfs.newFileSystem(Configuration.unix().toBuilder()
            .setAttributeViews("basic", "owner", "posix", "unix").build());
    final ManualTime time = new ManualTime();
    final Path brainDir;
    final Path footRoot;
    final Path footProject;
    final TransferSettings settings;
    final Set<TransferCapability> capabilities;
    final TransferEndpoint brain;
    TransferEndpoint foot;
    /** The bytes the Foot wrote so far, over every connection. */
    final AtomicLong footBytes = new AtomicLong();
    private final List<Link> links = new ArrayList<>();
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
        brain = TransferEndpoint.builder(TransferSide.BRAIN).settings(settings)
                .resolver(new RootDirTargetResolver((scope, dir) -> Optional.of(brainDir)))
                .clock(time.clock()).scheduler(ManualTransferScheduler.on(time)).build();
        foot = newFoot();
    }

    private TransferEndpoint newFoot() {
        TransferListener listener = new TransferListener() {
            @Override
            public void onProgress(String transferId, Role role, long bytesDone, long totalBytes) {
                if (role == Role.RECEIVER) {
                    footBytes.set(bytesDone);
                }
            }
        };
        return TransferEndpoint.builder(TransferSide.FOOT).settings(settings).resolver(FootTargetResolver.at(footRoot))
                .clock(time.clock()).scheduler(ManualTransferScheduler.on(time)).listener(listener).build();
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

        Link(String name) {
            boolean binary = capabilities.contains(TransferCapability.BINARY);
            pair = InMemoryFramePair.<TransferFrame>builder().name(name).highWaterMark(16)
                    .wire(WireBytes.encoder(binary), WireBytes::decode)
                    .build();
            brainConn = brain.attach(pair.left(), SCOPE, capabilities);
            footConn = foot.attach(pair.right(), SCOPE, capabilities);
            pair.left().onReceive(f -> {
                sentByFoot.add(f);
                if (!brainSilent) {
                    brainConn.onFrame(f);
                }
            }).onClose(brainConn::onClose);
            pair.right().onReceive(f -> {
                sentByBrain.add(f);
                footConn.onFrame(f);
            }).onClose(footConn::onClose);
        }

        CompletableFuture<TransferResult> send(String source, String target) {
            return brainConn.send(brainDir, source, target, null, null);
        }

        CompletableFuture<TransferResult> resume(String id, String source, String target) {
            return brainConn.resume(id, brainDir, source, target, null, null);
        }

        /** Delivers frames both ways, one at a time, until the Foot wrote at least {@code bytes} or nothing is left. */
        void deliverUntilFootHas(long bytes) {
            while (footBytes.get() < bytes && (pair.deliverNext(pair.left()) || pair.deliverNext(pair.right()))) {
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
    }

    Link connect() {
        Link l = new Link("c" + (++connections));
        links.add(l);
        return l;
    }

    Path brainFile(String name, byte[] content) throws IOException {
        return Files.write(brainDir.resolve(name), content);
    }

    /** Every entry under the Foot's root with a reserved name (staging files, sidecars), anywhere. */
    List<Path> reservedEntries() throws IOException {
        try (Stream<Path> s = Files.walk(footRoot)) {
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

    static TransferResult done(CompletableFuture<TransferResult> f) {
        assertThat(f).as("transfer result").isDone();
        return f.join();
    }

    @Override
    public void close() throws IOException {
        links.forEach(l -> l.pair.close());
        brain.close();
        foot.close();
        fs.close();
    }
}
