package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.statistics.Statistics;
import org.vancetope.worktarget.core.transfer.TransferCapability;
import org.vancetope.worktarget.core.transfer.TransferResult;
import org.vancetope.worktarget.core.transfer.TransferSettings;

/**
 * {@code transfer.resume} under random cuts, for downloads and uploads: the connection drops whenever the
 * receiver (the Foot of a download, the Brain of an upload) holds some random number of bytes (one to three
 * times, the receiver sometimes restarting in between), and the transfer is taken up on a new connection
 * each time. Every file arrives identical or the transfer fails cleanly (no target, nothing kept past the
 * retention), and the pending maps end empty.
 */
class ResumePropertyTest {
    private static final TransferSettings SETTINGS = TransferSettings.defaults().toBuilder().chunkSize(16 * 1024).build();
    private static final String SOURCE = "f.bin";
    private static final String TARGET = "in/f.bin";

    /** Which way the file goes, and so which end receives, keeps and restarts. */
    enum Direction {
        /** Brain → Foot: the Brain sends and resumes with {@code transfer_resume}. */
        DOWNLOAD,
        /** Foot → Brain: the Brain asks, the Foot sends, the Brain asks again with {@code resume}. */
        UPLOAD;

        void writeSource(ResumeHarness h, byte[] content) throws IOException {
            if (this == DOWNLOAD) {
                h.brainFile(SOURCE, content);
            } else {
                h.footFile(SOURCE, content);
            }
        }

        CompletableFuture<TransferResult> start(ResumeHarness.Link l) {
            return this == DOWNLOAD ? l.send(SOURCE, TARGET) : l.upload(SOURCE, TARGET);
        }

        CompletableFuture<TransferResult> resume(ResumeHarness.Link l, String id) {
            return this == DOWNLOAD ? l.resume(id, SOURCE, TARGET) : l.resumeUpload(id, SOURCE, TARGET);
        }

        void deliverUntilReceiverHas(ResumeHarness.Link l, long bytes) {
            if (this == DOWNLOAD) {
                l.deliverUntilFootHas(bytes);
            } else {
                l.deliverUntilBrainHas(bytes);
            }
        }

        void restartReceiver(ResumeHarness h) {
            if (this == DOWNLOAD) {
                h.restartFoot();
            } else {
                h.restartBrain();
            }
        }

        Path target(ResumeHarness h) {
            return (this == DOWNLOAD ? h.footProject : h.brainDir).resolve(TARGET);
        }

        List<Path> receiverReservedEntries(ResumeHarness h) throws IOException {
            return this == DOWNLOAD ? h.reservedEntries() : h.brainReservedEntries();
        }

        int receiverKept(ResumeHarness h) {
            return (this == DOWNLOAD ? h.foot : h.brain).keptReceives();
        }
    }

    @Property(tries = 240)
    void everyFileArrivesIdenticalOrTheTransferFailsCleanly(@ForAll Direction direction,
                                                           @ForAll @IntRange(min = 0, max = 300_000) int size,
                                                           @ForAll @Size(min = 1, max = 3) List<@IntRange(min = 0,
                                                                   max = 300_000) Integer> cuts,
                                                           @ForAll boolean restartBetween,
                                                           @ForAll boolean hashTrailer,
                                                           @ForAll boolean binary,
                                                           @ForAll long seed) throws Exception {
        Set<TransferCapability> caps = EnumSet.of(TransferCapability.RESUME);
        if (hashTrailer) {
            caps.add(TransferCapability.HASH_TRAILER);
        }
        if (binary) {
            caps.add(TransferCapability.BINARY);
        }
        try (ResumeHarness h = new ResumeHarness(caps, SETTINGS)) {
            byte[] content = TransferFixture.randomBytes(size, seed);
            direction.writeSource(h, content);
            ResumeHarness.Link link = h.connect();
            CompletableFuture<TransferResult> running = direction.start(link);
            for (int cut : cuts.stream().sorted().toList()) {
                direction.deliverUntilReceiverHas(link, Math.min(cut, size));
                if (running.isDone()) {
                    break;
                }
                link.cut();
                TransferResult interrupted = ResumeHarness.done(running);
                if (interrupted.resumeId() == null) {
                    break;
                }
                if (restartBetween) {
                    direction.restartReceiver(h);
                }
                link = h.connect();
                running = direction.resume(link, interrupted.resumeId());
            }
            link.deliverAll();
            TransferResult r = ResumeHarness.done(running);
            Statistics.label("outcome").collect(direction, r.ok() ? "arrived" : "failed cleanly");

            if (r.ok()) {
                assertThat(Files.readAllBytes(direction.target(h))).isEqualTo(content);
                assertThat(direction.receiverReservedEntries(h)).as("nothing kept after success").isEmpty();
            } else {
                assertThat(r.error()).isNotBlank();
                assertThat(Files.exists(direction.target(h))).as("no target after a failure").isFalse();
                h.time.advance(SETTINGS.resumeRetention());
                assertThat(direction.receiverReservedEntries(h)).as("nothing kept past the retention").isEmpty();
            }
            assertThat(direction.receiverKept(h)).isZero();
            h.assertNothingPending();
        }
    }
}
