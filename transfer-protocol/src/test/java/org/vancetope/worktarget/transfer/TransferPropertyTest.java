package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.jimfs.Configuration;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.vancetope.worktarget.core.internal.transfer.ChunkCompression;
import org.vancetope.worktarget.core.internal.transfer.Sha256;
import org.vancetope.worktarget.core.transfer.TransferCapability;
import org.vancetope.worktarget.core.transfer.TransferChunk;
import org.vancetope.worktarget.core.transfer.TransferComplete;
import org.vancetope.worktarget.core.transfer.TransferConnection;
import org.vancetope.worktarget.core.transfer.TransferFinish;
import org.vancetope.worktarget.core.transfer.TransferFrame;
import org.vancetope.worktarget.core.transfer.TransferInit;
import org.vancetope.worktarget.core.transfer.TransferInitResponse;
import org.vancetope.worktarget.core.transfer.TransferResult;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.testkit.InMemoryFramePair;

/**
 * Random frame sequences — dropped, duplicated, reordered, truncated, garbage, foreign transfer ids,
 * frames from another channel, time jumps — at a real receiver and a real sender. Invariants: no
 * exception reaches the transport, no staging file survives, an existing target is either untouched
 * or replaced by exactly the verified content, and both sides' pending maps end empty.
 */
class TransferPropertyTest {
    private static final byte[] OLD = "existing target".getBytes(StandardCharsets.UTF_8);
    private static final TransferSettings SETTINGS = TransferSettings.builder().chunkSize(512).maxChunksInFlight(3).build();
    private final TransferCodec codec = TransferCodec.create();

    /** One change applied to the honest frame sequence, or one action of the test peer. */
    record Mutation(int kind, int a, int b) {
    }

    @Provide
    Arbitrary<List<Mutation>> mutations() {
        return Combinators.combine(Arbitraries.integers().between(0, 8), Arbitraries.integers().between(0, 10_000),
                Arbitraries.integers().between(0, 10_000)).as(Mutation::new).list().ofMaxSize(12);
    }

    @Provide
    Arbitrary<List<Mutation>> actions() {
        return Combinators.combine(Arbitraries.integers().between(0, 9), Arbitraries.integers().between(0, 10_000),
                Arbitraries.integers().between(0, 10_000)).as(Mutation::new).list().ofMaxSize(60);
    }

    private static byte[] data(int size, long seed) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** Random data, or with zstd, data of a four-letter alphabet, so most chunks compress and the rest go raw. */
    private static byte[] data(int size, long seed, boolean compressible) {
        byte[] b = data(size, seed);
        if (compressible) {
            for (int i = 0; i < b.length; i++) {
                b[i] = (byte) ('a' + (b[i] & 3));
            }
        }
        return b;
    }

    /** A chunk as a zstd sender cuts it: compressed when that pays, else raw. */
    private static TransferChunk chunk(String id, long seq, byte[] raw, boolean last, String hash, boolean zstd) {
        byte[] packed = zstd ? ChunkCompression.compress(raw, 3) : null;
        return packed == null ? new TransferChunk(id, seq, raw, last, hash)
                : new TransferChunk(id, seq, packed, last, hash, raw.length, TransferChunk.NO_OFFSET);
    }

    private static String sha(byte[] data) throws Exception {
        return Sha256.format(MessageDigest.getInstance("SHA-256").digest(data));
    }

    // ---------------------------------------------------------------- receiver

    private sealed interface Step permits FrameStep, GarbageStep, TimeStep, OtherChannelStep {
    }

    private record FrameStep(TransferFrame frame) implements Step {
    }

    private record GarbageStep(byte[] bytes) implements Step {
    }

    private record TimeStep(int seconds) implements Step {
    }

    private record OtherChannelStep(TransferFrame frame) implements Step {
    }

    private static TransferFrame withId(TransferFrame f, String id) {
        if (f instanceof TransferInit i) {
            return new TransferInit(id, i.source(), i.target(), i.dirName(), i.totalSize(), i.hash(), i.attrs(),
                    i.compression());
        }
        if (f instanceof TransferChunk c) {
            return new TransferChunk(id, c.seq(), c.bytes(), c.last(), c.hash(), c.rawSize(), TransferChunk.NO_OFFSET);
        }
        if (f instanceof TransferFinish fin) {
            return new TransferFinish(id, fin.ok(), fin.error());
        }
        return f;
    }

    private byte[] garbage(List<Step> steps, int a, int b) {
        Random r = new Random(a * 31L + b);
        for (Step s : steps) {
            if (s instanceof FrameStep fs && r.nextBoolean()) {
                byte[] json = codec.encode(fs.frame());
                int cut = json.length == 0 ? 0 : r.nextInt(json.length);
                if (r.nextBoolean()) {
                    return Arrays.copyOf(json, cut);          // truncated frame
                }
                byte[] flipped = json.clone();
                flipped[cut] = (byte) r.nextInt(256);       // one corrupted byte
                return flipped;
            }
        }
        byte[] random = new byte[r.nextInt(64)];
        r.nextBytes(random);
        return random;
    }

    @Property(tries = 250)
    void receiverSurvivesAnyFrameSequence(@ForAll @IntRange(min = 0, max = 3000) int size, @ForAll long seed,
                                          @ForAll boolean honestHash, @ForAll boolean hashTrailer,
                                          @ForAll boolean binary, @ForAll boolean zstd,
                                          @ForAll("mutations") List<Mutation> mutations) throws Exception {
        Set<TransferCapability> caps = capabilities(hashTrailer, binary, zstd);
        boolean compressed = caps.contains(TransferCapability.ZSTD);
        try (TransferFixture fx = new TransferFixture(Configuration.unix(), SETTINGS, 1_000, false, caps)) {
            fx.brainSilent = true;
            fx.footFile("t.bin", OLD);
            byte[] data = data(size, seed, compressed);
            List<Step> steps = new ArrayList<>();
            String announced = honestHash ? sha(data) : sha(OLD);
            steps.add(new FrameStep(new TransferInit("t1", null, "t.bin", null, size,
                    hashTrailer ? null : announced, null, compressed ? TransferInit.ZSTD : null)));
            int chunks = Math.max(1, (size + 511) / 512);
            for (int i = 0; i < chunks; i++) {
                int from = i * 512;
                int to = Math.min(size, from + 512);
                boolean last = i == chunks - 1;
                steps.add(new FrameStep(chunk("t1", i, Arrays.copyOfRange(data, from, to), last,
                        hashTrailer && last ? announced : null, compressed)));
            }
            steps.add(new FrameStep(new TransferFinish("t1", true, null)));
            for (Mutation m : mutations) {
                int n = steps.size();
                if (n == 0) {
                    break;
                }
                int i = m.a() % n;
                int j = m.b() % n;
                switch (m.kind()) {
                    case 0 -> steps.remove(i);                                         // dropped
                    case 1 -> steps.add(j, steps.get(i));                              // duplicated
                    case 2 -> {                                                        // reordered
                        Step s = steps.get(i);
                        steps.set(i, steps.get(j));
                        steps.set(j, s);
                    }
                    case 3 -> steps.subList(i, n).clear();                             // truncated
                    case 4 -> steps.add(j, new GarbageStep(garbage(steps, m.a(), m.b())));
                    case 5 -> {                                                        // foreign id
                        if (steps.get(i) instanceof FrameStep fs) {
                            steps.add(j, new FrameStep(withId(fs.frame(), "other-" + (m.b() % 3))));
                        }
                    }
                    case 6 -> {                                                        // another channel
                        if (steps.get(i) instanceof FrameStep fs) {
                            steps.add(j, new OtherChannelStep(fs.frame()));
                        }
                    }
                    case 7 -> steps.add(j, new TimeStep(m.b() % 45));                  // time passes
                    default -> {                                                       // whole-sequence replay
                        if (n < 40) {
                            steps.addAll(List.copyOf(steps));
                        }
                    }
                }
            }
            InMemoryFramePair<TransferFrame> otherPair = InMemoryFramePair.<TransferFrame>builder().name("other").build();
            TransferConnection other = fx.foot.attach(otherPair.left(), TransferFixture.SCOPE);
            List<TransferFrame> sentOnOther = new ArrayList<>();
            otherPair.right().onReceive(sentOnOther::add);
            for (Step s : steps) {
                if (s instanceof FrameStep fs) {
                    fx.pair.left().send(fs.frame());
                    fx.deliverAll();
                } else if (s instanceof GarbageStep g) {
                    TransferFrame decoded;
                    try {
                        decoded = codec.decode(g.bytes());
                    } catch (FrameDecodeException e) {
                        continue;   // the transport would answer bad_frame; nothing reaches the machines
                    }
                    fx.pair.left().send(decoded);
                    fx.deliverAll();
                } else if (s instanceof OtherChannelStep o) {
                    other.onFrame(o.frame());
                    otherPair.deliverAll();
                } else if (s instanceof TimeStep t) {
                    fx.advance(Duration.ofSeconds(t.seconds()));
                }
            }
            for (int i = 0; i < 14; i++) {
                fx.advance(Duration.ofSeconds(30));
            }
            otherPair.deliverAll();
            otherPair.close();
            fx.assertClean();
            // A frame replayed on another channel may legitimately start and finish a transfer there.
            List<TransferFrame> answers = new ArrayList<>(fx.sentByFoot);
            answers.addAll(sentOnOther);
            boolean anySuccess = answers.stream().anyMatch(f -> f instanceof TransferComplete c && c.ok());
            // A corrupted byte may turn the target into another valid name ("t.bin" -> "t.bWn"): that is a
            // legitimate transfer of the same chunks to another file. Whatever the sequence, every file is
            // either untouched or a whole, verified result of a transfer that reported success.
            String verified = honestHash ? sha(data) : sha(OLD);
            byte[] now = Files.readAllBytes(fx.footProject.resolve("t.bin"));
            if (!Arrays.equals(now, OLD)) {
                assertThat(anySuccess).as("t.bin changed without a successful transfer").isTrue();
                assertThat(sha(now)).isEqualTo(verified);
                assertThat(now).isEqualTo(data);
            }
            try (var files = Files.walk(fx.footProject)) {
                for (Path p : files.filter(Files::isRegularFile).toList()) {
                    if (p.getFileName().toString().equals("t.bin") && p.getParent().equals(fx.footProject)) {
                        continue;
                    }
                    assertThat(anySuccess).as("%s exists without a successful transfer", p).isTrue();
                    assertThat(sha(Files.readAllBytes(p))).as("%s is a whole, verified file", p).isEqualTo(verified);
                }
            }
        }
    }

    @net.jqwik.api.Example
    void theCombinationsIncludeZstd() {
        // the properties above cover transfer.zstd only where it is usable: in this module's tests it is
        assertThat(ChunkCompression.availability().reason()).isNull();
        assertThat(capabilities(false, false, true)).contains(TransferCapability.ZSTD);
    }

    // ---------------------------------------------------------------- sender (and the real receiver)

    @Property(tries = 250)
    void senderAndReceiverSurviveAnyDeliveryOrder(@ForAll @IntRange(min = 0, max = 4000) int size, @ForAll long seed,
                                                  @ForAll boolean hashTrailer, @ForAll boolean binary,
                                                  @ForAll boolean zstd,
                                                  @ForAll("actions") List<Mutation> actions) throws Exception {
        Set<TransferCapability> caps = capabilities(hashTrailer, binary, zstd);
        try (TransferFixture fx = new TransferFixture(Configuration.unix(), SETTINGS, 4, false, caps)) {
            fx.footFile("t.bin", OLD);
            byte[] data = data(size, seed, caps.contains(TransferCapability.ZSTD));
            Path src = fx.brainFile("reports", "src.bin", data);
            CompletableFuture<TransferResult> result = fx.send(src, "t.bin", null, null);
            String id = null;
            TransferFrame lastFromFoot = null;
            for (Mutation m : actions) {
                if (id == null && !fx.sentByBrain.isEmpty()) {
                    id = fx.sentByBrain.get(0).transferId();
                }
                switch (m.kind()) {
                    case 0, 1 -> fx.pair.deliverNext(fx.pair.left());
                    case 2 -> {
                        fx.pair.deliverNext(fx.pair.right());
                        if (!fx.sentByFoot.isEmpty()) {
                            lastFromFoot = fx.sentByFoot.get(fx.sentByFoot.size() - 1);
                        }
                    }
                    case 3 -> fx.pair.dropNext(fx.pair.left());
                    case 4 -> fx.pair.dropNext(fx.pair.right());
                    case 5 -> {                                                       // duplicate
                        if (lastFromFoot != null) {
                            fx.brainConn.onFrame(lastFromFoot);
                        }
                    }
                    case 6 -> fx.brainConn.onFrame(m.a() % 2 == 0                   // foreign ids
                            ? new TransferInitResponse("foreign-" + m.b() % 3, true, null)
                            : new TransferComplete("foreign-" + m.b() % 3, true, null, 1, "ok"));
                    case 7 -> fx.advance(Duration.ofSeconds(m.b() % 40));
                    case 8 -> fx.pair.left().pauseWritable(m.a() % 2 == 0);
                    default -> {
                        if (m.a() % 10 == 0) {
                            fx.pair.close();                                          // connection lost
                        } else {
                            fx.deliverAll();
                        }
                    }
                }
            }
            fx.pair.left().pauseWritable(false);
            for (int i = 0; i < 14; i++) {
                if (!fx.pair.isClosed()) {
                    fx.deliverAll();
                }
                fx.advance(Duration.ofSeconds(30));
            }
            assertThat(result).isDone();
            TransferResult r = result.join();
            fx.assertClean();
            byte[] now = Files.readAllBytes(fx.footProject.resolve("t.bin"));
            if (r.ok()) {
                assertThat(now).isEqualTo(data);
                assertThat(r.bytesWritten()).isEqualTo(size);
            } else {
                assertThat(now).satisfiesAnyOf(b -> assertThat(b).isEqualTo(OLD), b -> assertThat(b).isEqualTo(data));
            }
            assertThat(fx.stagingFiles()).isEmpty();
        }
    }

    /**
     * Every combination of the transfer capabilities: each property runs with and without each one
     * ({@code transfer.zstd} whenever zstd-jni is usable here, which this module's tests assert).
     */
    private static Set<TransferCapability> capabilities(boolean hashTrailer, boolean binary, boolean zstd) {
        Set<TransferCapability> caps = java.util.EnumSet.noneOf(TransferCapability.class);
        if (hashTrailer) {
            caps.add(TransferCapability.HASH_TRAILER);
        }
        if (binary) {
            caps.add(TransferCapability.BINARY);
        }
        if (zstd && ChunkCompression.available()) {
            caps.add(TransferCapability.ZSTD);
        }
        return caps;
    }
}
