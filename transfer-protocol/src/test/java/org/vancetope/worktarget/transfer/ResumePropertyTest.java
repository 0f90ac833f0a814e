package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.vancetope.worktarget.core.transfer.TransferCapability;
import org.vancetope.worktarget.core.transfer.TransferResult;
import org.vancetope.worktarget.core.transfer.TransferSettings;

/**
 * {@code transfer.resume} under random cuts, for downloads and uploads: the connection drops whenever the
 * receiver holds some random number of bytes (one to three times, the receiver sometimes restarting in
 * between), and the transfer is taken up on a new connection each time. Every file arrives identical or the transfer fails
 * cleanly (no target, nothing kept past the retention), and the pending maps end empty.
 */
class ResumePropertyTest {
    private static final TransferSettings SETTINGS = TransferSettings.defaults().toBuilder().chunkSize(16 * 1024).build();

    @Property(tries = 120)
    void everyFileArrivesIdenticalOrTheTransferFailsCleanly(@ForAll @IntRange(min = 0, max = 300_000) int size,
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
            h.brainFile("f.bin", content);
            ResumeHarness.Link link = h.connect();
            CompletableFuture<TransferResult> running = link.send("f.bin", "in/f.bin");
            for (int cut : cuts.stream().sorted().toList()) {
                link.deliverUntilFootHas(Math.min(cut, size));
                if (running.isDone()) {
                    break;
                }
                link.cut();
                TransferResult interrupted = ResumeHarness.done(running);
                if (interrupted.resumeId() == null) {
                    break;
                }
                if (restartBetween) {
                    h.restartFoot();
                }
                link = h.connect();
                running = link.resume(interrupted.resumeId(), "f.bin", "in/f.bin");
            }
            link.deliverAll();
            TransferResult r = ResumeHarness.done(running);

            if (r.ok()) {
                assertThat(Files.readAllBytes(h.footProject.resolve("in/f.bin"))).isEqualTo(content);
                assertThat(h.reservedEntries()).as("nothing kept after success").isEmpty();
            } else {
                assertThat(r.error()).isNotBlank();
                assertThat(Files.exists(h.footProject.resolve("in/f.bin"))).as("no target after a failure").isFalse();
                h.time.advance(SETTINGS.resumeRetention());
                assertThat(h.reservedEntries()).as("nothing kept past the retention").isEmpty();
            }
            assertThat(h.foot.keptReceives()).isZero();
            h.assertNothingPending();
        }
    }

    /**
     * The same for uploads: the Brain receives, its connection drops at random offsets, it restarts in
     * between when asked to, and the upload is asked for again with {@code resume} on each new connection.
     */
    @Property(tries = 120)
    void everyUploadArrivesIdenticalOrFailsCleanly(@ForAll @IntRange(min = 0, max = 300_000) int size,
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
            h.footFile("f.bin", content);
            ResumeHarness.Link link = h.connect();
            CompletableFuture<TransferResult> running = link.upload("f.bin", "in/f.bin");
            for (int cut : cuts.stream().sorted().toList()) {
                link.deliverUntilBrainHas(Math.min(cut, size));
                if (running.isDone()) {
                    break;
                }
                link.cut();
                TransferResult interrupted = ResumeHarness.done(running);
                if (interrupted.resumeId() == null) {
                    break;
                }
                if (restartBetween) {
                    h.restartBrain();
                }
                link = h.connect();
                running = link.resumeUpload(interrupted.resumeId(), "f.bin", "in/f.bin");
            }
            link.deliverAll();
            TransferResult r = ResumeHarness.done(running);
            Statistics.label("upload outcome").collect(r.ok() ? "arrived" : "failed cleanly");

            if (r.ok()) {
                assertThat(Files.readAllBytes(h.brainDir.resolve("in/f.bin"))).isEqualTo(content);
                assertThat(h.brainReservedEntries()).as("nothing kept after success").isEmpty();
            } else {
                assertThat(r.error()).isNotBlank();
                assertThat(Files.exists(h.brainDir.resolve("in/f.bin"))).as("no target after a failure").isFalse();
                h.time.advance(SETTINGS.resumeRetention());
                assertThat(h.brainReservedEntries()).as("nothing kept past the retention").isEmpty();
            }
            assertThat(h.brain.keptReceives()).isZero();
            h.assertNothingPending();
        }
    }
}
