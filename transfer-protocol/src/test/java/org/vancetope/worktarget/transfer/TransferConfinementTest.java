package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.vancetope.worktarget.core.FileToolSettings;
import org.vancetope.worktarget.core.internal.file.FileEngine;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.transfer.TransferChunk;
import org.vancetope.worktarget.core.transfer.TransferResult;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The {@code jailbreak} family against every consumer of the confinement gate that a transfer has:
 * the receiver on the server (an upload into a RootDir) and on the client (a download), the sender on
 * the server (a download's source) and on the client (an upload's source), next to the file tools on
 * the same roots. Every hostile path is refused by every consumer with the same message as the file
 * tool of the same kind (write or read), nothing outside the roots is created, changed or read, and no
 * staging file or pending transfer is left; every path the file tools accept (an in-root link, a
 * {@code ..} that stays inside) is accepted by every consumer. On Jimfs and on the real disk.
 */
class TransferConfinementTest {
    private static final byte[] SOURCE = "the source file\n".getBytes(StandardCharsets.UTF_8);
    private static final String RESERVED = ".wt-0000.1.0-0123456789abcdef.part";

    @TempDir
    Path tmp;

    enum Flavour { JIMFS, DISK }

    /** A consumer of the gate, and whether it reads (a sender) or writes (a receiver). */
    enum Consumer {
        FILE_WRITE(false, false), FILE_READ(true, false),
        SERVER_RECEIVE(false, true), CLIENT_RECEIVE(false, false),
        SERVER_SEND(true, true), CLIENT_SEND(true, false);

        final boolean reads;
        final boolean onServer;

        Consumer(boolean reads, boolean onServer) {
            this.reads = reads;
            this.onServer = onServer;
        }
    }

    /** Paths every consumer must refuse; the same tree is set up in every root. */
    private static final List<String> HOSTILE = List.of(
            "../x.txt", "a/../../x.txt", "../proj-other/x.txt", "/etc/passwd", "~x", "~/x.txt", "a:b.txt", "C:/x.txt",
            "a\\..\\..\\x.txt", "a\u0000b", "a\nb", "out/secret.txt", "out/new.txt", "secret.lnk", "dangling",
            "loop/x.txt", "in-out/secret.txt", ".worktarget/tmp/x.txt", ".worktarget", RESERVED, "sub/" + RESERVED, "",
            ".");

    /** Paths every consumer must accept, and where they lead inside the root. */
    private static final Map<String, String> ACCEPTED = Map.of(
            "alias/data.txt", "real/data.txt",
            "real/../real/data.txt", "real/data.txt",
            "./real//data.txt", "real/data.txt");

    static Stream<Arguments> hostile() {
        List<Arguments> out = new ArrayList<>();
        for (Flavour f : Flavour.values()) {
            for (Consumer c : Consumer.values()) {
                for (String p : HOSTILE) {
                    out.add(Arguments.of(f, c, p));
                }
            }
        }
        return out.stream();
    }

    static Stream<Arguments> accepted() {
        List<Arguments> out = new ArrayList<>();
        for (Flavour f : Flavour.values()) {
            for (Consumer c : Consumer.values()) {
                for (String p : ACCEPTED.keySet()) {
                    out.add(Arguments.of(f, c, p));
                }
            }
        }
        return out.stream();
    }

    private TransferFixture fixture(Flavour flavour) throws IOException {
        TransferFixture fx = flavour == Flavour.JIMFS ? new TransferFixture() : TransferFixture.onDisk(tmp);
        Path outside = Files.createDirectories(fx.top.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), "TOP SECRET\n");
        for (Path root : List.of(fx.footProject, fx.rootDirs.get("uploads"))) {
            Files.createDirectories(root.resolve("real"));
            Files.write(root.resolve("real/data.txt"), SOURCE);
            Files.write(root.resolve("src.bin"), SOURCE);
            Files.createSymbolicLink(root.resolve("alias"), root.getFileSystem().getPath("real"));
            Files.createSymbolicLink(root.resolve("out"), outside);
            Files.createSymbolicLink(root.resolve("in-out"), root.getFileSystem().getPath("out"));
            Files.createSymbolicLink(root.resolve("secret.lnk"), outside.resolve("secret.txt"));
            Files.createSymbolicLink(root.resolve("dangling"), outside.resolve("missing.txt"));
            Files.createSymbolicLink(root.resolve("loop"), root.getFileSystem().getPath("loop"));
            Files.createDirectories(root.resolve(".worktarget/tmp"));
            Files.createDirectories(root.resolve("sub"));
        }
        return fx;
    }

    private static Path rootOf(TransferFixture fx, Consumer c) {
        return c.onServer ? fx.rootDirs.get("uploads") : fx.footProject;
    }

    /** What the file tool of the same kind says about the path on the consumer's root (null: accepted). */
    private static String fileTool(Path root, boolean reads, String path) throws IOException {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("path", path);
        if (!reads) {
            p.put("content", "x");
        }
        try {
            new FileEngine(FileToolSettings.defaults()).run(reads ? "file_read" : "file_write", ConfinedRoot.of(root), p);
            return null;
        } catch (ToolException e) {
            return e.getMessage();
        }
    }

    /** Runs the consumer on the path; the error it reports, or null when it succeeded. */
    private static String attempt(TransferFixture fx, Consumer c, String path) throws IOException {
        CompletableFuture<TransferResult> f;
        switch (c) {
            case FILE_WRITE, FILE_READ -> {
                return fileTool(fx.footProject, c.reads, path);
            }
            case CLIENT_RECEIVE -> f = fx.send(fx.rootDirs.get("uploads").resolve("src.bin"), path, null, null);
            case SERVER_RECEIVE -> f = fx.brainConn.requestUpload(TransferFixture.SCOPE, "src.bin", "uploads", path, null);
            case SERVER_SEND -> f = fx.brainConn.send(fx.rootDirs.get("uploads"), path, "got.bin", null, null);
            case CLIENT_SEND -> f = fx.brainConn.requestUpload(TransferFixture.SCOPE, path, "uploads", "got.bin", null);
            default -> throw new AssertionError(c);
        }
        fx.deliverAll();
        TransferResult r = TransferFixture.done(f);
        return r.ok() ? null : r.error();
    }

    private static List<String> tree(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.map(p -> dir.relativize(p).toString()).sorted().toList();
        }
    }

    @ParameterizedTest(name = "{0} {1} refuses \"{2}\"")
    @MethodSource("hostile")
    void jailbreakEveryConsumerRefusesWhatTheFileToolsRefuseWithTheSameMessage(Flavour flavour, Consumer consumer,
                                                                                String path) throws Exception {
        try (TransferFixture fx = fixture(flavour)) {
            String expected = fileTool(rootOf(fx, consumer), consumer.reads, path);
            assertThat(expected).as("the file tool refuses %s", path).isNotNull();
            assertThat(attempt(fx, consumer, path)).isEqualTo(expected);
            Path outside = fx.top.resolve("outside");
            assertThat(tree(outside)).containsExactly("", "secret.txt");
            assertThat(Files.readString(outside.resolve("secret.txt"))).isEqualTo("TOP SECRET\n");
            assertThat(fx.framesOf(fx.sentByBrain, TransferChunk.class)).as("nothing was streamed").isEmpty();
            assertThat(fx.framesOf(fx.sentByFoot, TransferChunk.class)).as("nothing was streamed").isEmpty();
            fx.assertClean();
        }
    }

    @ParameterizedTest(name = "{0} {1} accepts \"{2}\"")
    @MethodSource("accepted")
    void everyConsumerAcceptsWhatTheFileToolsAcceptIncludingALinkThatStaysInside(Flavour flavour, Consumer consumer,
                                                                               String path) throws Exception {
        try (TransferFixture fx = fixture(flavour)) {
            assertThat(fileTool(rootOf(fx, consumer), true, path)).isNull();
            Files.write(rootOf(fx, consumer).resolve(ACCEPTED.get(path)), SOURCE);
            assertThat(attempt(fx, consumer, path)).isNull();
            if (!consumer.reads) {
                String expected = consumer == Consumer.FILE_WRITE ? "x" : new String(SOURCE, StandardCharsets.UTF_8);
                assertThat(Files.readString(rootOf(fx, consumer).resolve(ACCEPTED.get(path)))).isEqualTo(expected);
                assertThat(Files.isSymbolicLink(rootOf(fx, consumer).resolve("alias"))).as("the link stays a link")
                        .isTrue();
            } else if (consumer != Consumer.FILE_READ) {
                Path got = consumer.onServer ? fx.footProject.resolve("got.bin")
                        : fx.rootDirs.get("uploads").resolve("got.bin");
                assertThat(Files.readAllBytes(got)).isEqualTo(SOURCE);
            }
            fx.assertClean();
        }
    }

    static Stream<Arguments> receivers() {
        List<Arguments> out = new ArrayList<>();
        for (Flavour f : Flavour.values()) {
            out.add(Arguments.of(f, Consumer.SERVER_RECEIVE, "remotePath"));
            out.add(Arguments.of(f, Consumer.CLIENT_RECEIVE, "localPath"));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("receivers")
    void noReceiverWritesANameWithTheReplacementCharacterThatStandsForBytesThatAreNotUtf8(Flavour flavour,
                                                                                         Consumer consumer,
                                                                                         String param)
            throws Exception {
        try (TransferFixture fx = fixture(flavour)) {
            Path root = rootOf(fx, consumer);
            List<String> before = tree(root);
            String error = attempt(fx, consumer, "sub/caf\uFFFD.txt");
            assertThat(error).startsWith("Parameter '" + param + "' 'sub/caf\uFFFD.txt' contains U+FFFD")
                    .contains("Nothing was written");
            assertThat(tree(root)).as("nothing created").isEqualTo(before);
            assertThat(fx.framesOf(fx.sentByBrain, TransferChunk.class)).as("nothing was streamed").isEmpty();
            assertThat(fx.framesOf(fx.sentByFoot, TransferChunk.class)).as("nothing was streamed").isEmpty();
            fx.assertClean();
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("receivers")
    void noReceiverWritesAFileWhereTheTargetNamesADirectory(Flavour flavour, Consumer consumer, String param)
            throws Exception {
        try (TransferFixture fx = fixture(flavour)) {
            Path root = rootOf(fx, consumer);
            List<String> before = tree(root);
            for (String target : List.of("incoming/", "incoming/.")) {
                String error = attempt(fx, consumer, target);
                assertThat(error).as(target).startsWith("Parameter '" + param + "' '" + target + "' names a directory")
                        .contains("a file transfer writes a file. Nothing was transferred.", "'incoming/notes.txt'");
            }
            assertThat(tree(root)).as("no file called 'incoming'").isEqualTo(before);
            assertThat(fx.framesOf(fx.sentByBrain, TransferChunk.class)).as("nothing was streamed").isEmpty();
            assertThat(fx.framesOf(fx.sentByFoot, TransferChunk.class)).as("nothing was streamed").isEmpty();
            fx.assertClean();
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("receivers")
    void aReceiverNamesTheFileInTheWayOfATargetBelowIt(Flavour flavour, Consumer consumer, String param)
            throws Exception {
        try (TransferFixture fx = fixture(flavour)) {
            Path root = rootOf(fx, consumer);
            List<String> before = tree(root);
            assertThat(attempt(fx, consumer, "src.bin/deeper/x.bin"))
                    .isEqualTo("Cannot write 'src.bin/deeper/x.bin': 'src.bin' is a file, not a directory.");
            assertThat(tree(root)).as("nothing created").isEqualTo(before);
            assertThat(fx.framesOf(fx.sentByBrain, TransferChunk.class)).as("nothing was streamed").isEmpty();
            assertThat(fx.framesOf(fx.sentByFoot, TransferChunk.class)).as("nothing was streamed").isEmpty();
            fx.assertClean();
        }
    }

    @Test
    void theSenderStreamsTheFileItCheckedAndHashedEvenWhenThePathIsRepointedMeanwhile() throws Exception {
        try (TransferFixture fx = new TransferFixture()) {
            Path uploads = fx.rootDirs.get("uploads");
            byte[] checked = TransferFixture.randomBytes(200_000, 1);
            byte[] other = TransferFixture.randomBytes(200_000, 2);
            Files.write(uploads.resolve("r.bin"), checked);
            CompletableFuture<TransferResult> f = fx.brainConn.send(uploads, "r.bin", "r.bin", null, null);
            // transfer_init is on the wire; before the client answers, the path is pointed at another file
            Files.move(uploads.resolve("r.bin"), uploads.resolve("r.old"));
            Files.write(uploads.resolve("r.bin"), other);
            fx.deliverAll();
            TransferResult r = TransferFixture.done(f);
            assertThat(r.ok()).as("%s", r).isTrue();
            assertThat(Files.readAllBytes(fx.footProject.resolve("r.bin"))).isEqualTo(checked);
            fx.assertClean();
        }
    }

    @Test
    void aDownloadInFlightIsInvisibleToEveryFileToolOfTheReceivingRoot() throws Exception {
        try (TransferFixture fx = new TransferFixture()) {
            Path uploads = fx.rootDirs.get("uploads");
            Files.write(uploads.resolve("big.bin"), TransferFixture.randomBytes(600_000, 3));
            Files.writeString(fx.footProject.resolve("notes.txt"), "notes\n");
            CompletableFuture<TransferResult> f = fx.brainConn.send(uploads, "big.bin", "in/big.bin", null, null);
            fx.pair.deliverNext(fx.pair.left());   // transfer_init reaches the client
            fx.pair.deliverNext(fx.pair.right());  // its ok reaches the server, which starts streaming
            fx.pair.deliverNext(fx.pair.left());   // one chunk is written to the staging file
            assertThat(fx.stagingFiles()).as("a staging file exists while the transfer runs").hasSize(1);
            assertInvisible(fx.footProject);
            fx.deliverAll();
            assertThat(TransferFixture.done(f).ok()).isTrue();
            fx.assertClean();
        }
    }

    @Test
    void anUploadInFlightIsInvisibleToEveryFileToolOfTheReceivingRootDir() throws Exception {
        try (TransferFixture fx = new TransferFixture()) {
            Path uploads = fx.rootDirs.get("uploads");
            Files.write(fx.footProject.resolve("big.bin"), TransferFixture.randomBytes(600_000, 4));
            Files.writeString(uploads.resolve("notes.txt"), "notes\n");
            CompletableFuture<TransferResult> f = fx.brainConn.requestUpload(TransferFixture.SCOPE, "big.bin", "uploads",
                    "in/big.bin", null);
            fx.pair.deliverNext(fx.pair.left());   // the request reaches the client
            fx.pair.deliverNext(fx.pair.right());  // its transfer_init reaches the server
            fx.pair.deliverNext(fx.pair.left());   // the server's ok reaches the client, which starts streaming
            fx.pair.deliverNext(fx.pair.right());  // one chunk is written to the staging file
            assertThat(fx.stagingFiles()).as("a staging file exists while the transfer runs").hasSize(1);
            assertInvisible(uploads);
            fx.deliverAll();
            assertThat(TransferFixture.done(f).ok()).isTrue();
            fx.assertClean();
        }
    }

    @SuppressWarnings("unchecked")
    private static void assertInvisible(Path root) throws Exception {
        FileEngine engine = new FileEngine(FileToolSettings.defaults());
        ConfinedRoot r = ConfinedRoot.of(root);
        List<String> seen = new ArrayList<>();
        seen.addAll((List<String>) engine.run("file_list", r, Map.of("path", ".")).toMap().get("entries"));
        for (Object m : (List<Object>) engine.run("file_find", r, Map.of("path", ".")).toMap().get("files")) {
            seen.add(String.valueOf(((Map<String, Object>) m).get("path")));
        }
        for (Object m : (List<Object>) engine.run("file_grep", r, Map.of("pattern", ".", "path", ".")).toMap().get("matches")) {
            seen.add(String.valueOf(((Map<String, Object>) m).get("path")));
        }
        assertThat(seen).isNotEmpty().noneMatch(n -> n.contains(".wt-") || n.endsWith(".part"));
        assertThat(engine.run("file_count", r, Map.of("path", ".")).toMap().get("files")).isEqualTo(1);
    }
}
