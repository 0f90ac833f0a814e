package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.transfer.DirectoryEntry;
import org.vancetope.worktarget.core.transfer.DirectoryEntryResult;
import org.vancetope.worktarget.core.transfer.DirectoryManifest;
import org.vancetope.worktarget.core.transfer.DirectoryManifestResponse;
import org.vancetope.worktarget.core.transfer.DirectoryTransferResult;
import org.vancetope.worktarget.core.transfer.DirectoryUploadRequest;
import org.vancetope.worktarget.core.transfer.TransferCapability;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.spi.ErrorCode;

/**
 * Directory transfer ({@code transfer.directory}) on the real disk, both directions, with the JSON codec on
 * the wire: a tree with nested and empty directories, empty files, a link and a name with spaces and
 * non-ASCII letters; a hostile manifest refused entry by entry; no-clobber; limits.
 */
class DirectoryTransferTest {
    private static final String ODD_NAME = "notes with spaces – café 日本.txt";
    private static final byte[] BIG = TransferFixture.randomBytes(200_000, 7);

    @TempDir
    Path dir;

    private TransferFixture fx;

    @AfterEach
    void tearDown() throws IOException {
        if (fx != null) {
            fx.close();
        }
    }

    private TransferFixture fixture(TransferSettings settings, Set<TransferCapability> caps) throws IOException {
        fx = TransferFixture.onDisk(dir, settings, caps);
        return fx;
    }

    private TransferFixture fixture() throws IOException {
        return fixture(TransferSettings.defaults(), Set.of(TransferCapability.DIRECTORY));
    }

    /** The tree every test sends: see the class comment. */
    private static void tree(Path top) throws IOException {
        Files.createDirectories(top.resolve("nested/deep"));
        Files.createDirectories(top.resolve("empty-dir"));
        Files.writeString(top.resolve("a.txt"), "hello");
        Files.write(top.resolve("empty.txt"), new byte[0]);
        Files.write(top.resolve("nested/deep/x.bin"), BIG);
        Files.writeString(top.resolve(ODD_NAME), "odd", StandardCharsets.UTF_8);
        Files.createSymbolicLink(top.resolve("link"), Path.of("a.txt"));
    }

    private static void assertTreeArrived(Path got) throws IOException {
        assertThat(Files.readString(got.resolve("a.txt"))).isEqualTo("hello");
        assertThat(Files.size(got.resolve("empty.txt"))).isZero();
        assertThat(Files.readAllBytes(got.resolve("nested/deep/x.bin"))).isEqualTo(BIG);
        assertThat(Files.readString(got.resolve(ODD_NAME), StandardCharsets.UTF_8)).isEqualTo("odd");
        assertThat(got.resolve("empty-dir")).isEmptyDirectory();
        assertThat(Files.exists(got.resolve("link"), LinkOption.NOFOLLOW_LINKS)).as("links are never created").isFalse();
    }

    private static Map<String, DirectoryEntryResult> byPath(DirectoryTransferResult r) {
        return r.entries().stream().collect(Collectors.toMap(DirectoryEntryResult::path, Function.identity()));
    }

    private DirectoryTransferResult done(CompletableFuture<DirectoryTransferResult> f) {
        fx.deliverAll();
        assertThat(f).as("directory transfer result").isDone();
        return f.join();
    }

    private static String sha256(byte[] b) throws NoSuchAlgorithmException {
        return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    private List<Path> everything() throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.toList();
        }
    }

    // ---------------------------------------------------------------- both directions

    @Test
    void aDownloadCopiesTheWholeTreeAndSkipsTheLink() throws Exception {
        fixture();
        tree(fx.rootDirs.get("reports").resolve("site"));
        DirectoryTransferResult r = done(fx.brainConn.sendDirectory(fx.rootDirs.get("reports"), "site", "got", false));

        assertThat(r.ok()).as(r.toString()).isTrue();
        assertThat(r.filesWritten()).isEqualTo(4);
        assertThat(r.bytesWritten()).isEqualTo(5 + BIG.length + 3);
        assertTreeArrived(fx.footProject.resolve("got"));
        Map<String, DirectoryEntryResult> e = byPath(r);
        assertThat(e.get("link").status()).isEqualTo(DirectoryEntryResult.Status.SKIPPED);
        assertThat(e.get("link").error()).contains("never followed");
        assertThat(e.get("empty-dir").status()).isEqualTo(DirectoryEntryResult.Status.CREATED);
        assertThat(e.get("nested/deep/x.bin").hash()).isEqualTo(sha256(BIG));
        fx.assertClean();
    }

    @Test
    void anUploadCopiesTheWholeTreeAndSkipsTheLink() throws Exception {
        fixture();
        tree(fx.footProject.resolve("proj-src"));
        DirectoryTransferResult r = done(fx.brainConn.requestDirectoryUpload(TransferFixture.SCOPE, "proj-src",
                "uploads", "in/src", false));

        assertThat(r.ok()).as(r.toString()).isTrue();
        assertThat(r.filesWritten()).isEqualTo(4);
        assertTreeArrived(fx.rootDirs.get("uploads").resolve("in/src"));
        assertThat(byPath(r).get("link").status()).isEqualTo(DirectoryEntryResult.Status.SKIPPED);
        fx.assertClean();
    }

    @Test
    void oneProgressStreamCoversTheWholeTree() throws Exception {
        fixture();
        tree(fx.rootDirs.get("reports").resolve("site"));
        done(fx.brainConn.sendDirectory(fx.rootDirs.get("reports"), "site", "got", false));
        long total = 5 + BIG.length + 3;
        List<String> dir = fx.progress.stream().filter(p -> p.startsWith("dir ")).toList();
        assertThat(dir.get(0)).isEqualTo("dir SENDER:0/4 0/" + total);
        assertThat(dir.get(dir.size() - 1)).isEqualTo("dir SENDER:4/4 " + total + "/" + total);
        assertThat(dir).hasSizeGreaterThan(5);
    }

    @Test
    void theRootDirItselfCanBeTheTarget() throws Exception {
        fixture();
        tree(fx.footProject.resolve("proj-src"));
        DirectoryTransferResult r = done(fx.brainConn.requestDirectoryUpload(TransferFixture.SCOPE, "proj-src",
                "uploads", ".", false));
        assertThat(r.ok()).as(r.toString()).isTrue();
        assertTreeArrived(fx.rootDirs.get("uploads"));
    }

    // ---------------------------------------------------------------- no clobber

    @Test
    void anExistingFileIsKeptAndReportedWhileTheOthersLand() throws Exception {
        fixture();
        tree(fx.rootDirs.get("reports").resolve("site"));
        fx.footFile("got/a.txt", "mine".getBytes(StandardCharsets.UTF_8));
        DirectoryTransferResult r = done(fx.brainConn.sendDirectory(fx.rootDirs.get("reports"), "site", "got", false));

        assertThat(r.ok()).isFalse();
        DirectoryEntryResult a = byPath(r).get("a.txt");
        assertThat(a.status()).isEqualTo(DirectoryEntryResult.Status.FAILED);
        assertThat(a.code()).isEqualTo(ErrorCode.EXISTS);
        assertThat(a.error()).contains("overwrite");
        assertThat(Files.readString(fx.footProject.resolve("got/a.txt"))).isEqualTo("mine");
        assertThat(Files.readAllBytes(fx.footProject.resolve("got/nested/deep/x.bin"))).isEqualTo(BIG);
        assertThat(r.filesWritten()).isEqualTo(3);
        fx.assertClean();
    }

    @Test
    void overwriteReplacesAnExistingFile() throws Exception {
        fixture();
        tree(fx.footProject.resolve("proj-src"));
        Files.createDirectories(fx.rootDirs.get("uploads").resolve("in"));
        Files.writeString(fx.rootDirs.get("uploads").resolve("in/a.txt"), "old");
        DirectoryTransferResult r = done(fx.brainConn.requestDirectoryUpload(TransferFixture.SCOPE, "proj-src",
                "uploads", "in", true));
        assertThat(r.ok()).as(r.toString()).isTrue();
        assertThat(Files.readString(fx.rootDirs.get("uploads").resolve("in/a.txt"))).isEqualTo("hello");
    }

    @Test
    void anExistingFileInTheRootDirIsKeptOnUpload() throws Exception {
        fixture();
        tree(fx.footProject.resolve("proj-src"));
        Files.createDirectories(fx.rootDirs.get("uploads").resolve("in"));
        Files.writeString(fx.rootDirs.get("uploads").resolve("in/a.txt"), "old");
        DirectoryTransferResult r = done(fx.brainConn.requestDirectoryUpload(TransferFixture.SCOPE, "proj-src",
                "uploads", "in", false));
        assertThat(byPath(r).get("a.txt").code()).isEqualTo(ErrorCode.EXISTS);
        assertThat(Files.readString(fx.rootDirs.get("uploads").resolve("in/a.txt"))).isEqualTo("old");
        assertThat(r.filesWritten()).isEqualTo(3);
        fx.assertClean();
    }

    // ---------------------------------------------------------------- hostile sender

    /** Delivers frames of either side one at a time until the condition holds (at most 100,000 frames). */
    private void deliverUntil(java.util.function.BooleanSupplier condition) {
        for (int i = 0; i < 100_000 && !condition.getAsBoolean(); i++) {
            if (!fx.pair.deliverNext(fx.pair.left()) && !fx.pair.deliverNext(fx.pair.right())) {
                break;
            }
        }
        assertThat(condition.getAsBoolean()).as("reached while delivering").isTrue();
    }

    private boolean staging() {
        try {
            return !fx.stagingFiles().isEmpty();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void aCancelledDirectoryDownloadStopsAfterTheFileUnderWayAndKeepsWhatLanded() throws Exception {
        fixture();
        Path site = Files.createDirectories(fx.rootDirs.get("reports").resolve("c"));
        Files.writeString(site.resolve("1.txt"), "one");
        Files.write(site.resolve("2.bin"), TransferFixture.randomBytes(4_000_000, 31));
        Files.writeString(site.resolve("3.txt"), "three");
        CompletableFuture<DirectoryTransferResult> f = fx.brainConn.sendDirectory(fx.rootDirs.get("reports"), "c",
                "got", false);
        deliverUntil(() -> Files.exists(fx.footProject.resolve("got/1.txt")) && staging());

        f.cancel(true);             // the tool call waiting on it was cancelled
        fx.deliverAll();

        assertThat(fx.footProject.resolve("got/1.txt")).hasContent("one");
        assertThat(fx.footProject.resolve("got/2.bin")).doesNotExist();
        assertThat(fx.footProject.resolve("got/3.txt")).doesNotExist();
        assertThat(fx.framesOf(fx.sentByBrain, org.vancetope.worktarget.core.transfer.TransferInit.class))
                .extracting(i -> i.target()).noneMatch(t -> t.endsWith("3.txt"));
        fx.assertClean();
    }

    @Test
    void aCancelledDirectoryUploadStopsAfterTheFileUnderWayAndKeepsWhatLanded() throws Exception {
        fixture();
        fx.footFile("c/1.txt", "one".getBytes(StandardCharsets.UTF_8));
        fx.footFile("c/2.bin", TransferFixture.randomBytes(4_000_000, 32));
        fx.footFile("c/3.txt", "three".getBytes(StandardCharsets.UTF_8));
        Path in = fx.rootDirs.get("uploads").resolve("in");
        CompletableFuture<DirectoryTransferResult> f = fx.brainConn.requestDirectoryUpload(TransferFixture.SCOPE, "c",
                "uploads", "in", false);
        deliverUntil(() -> Files.exists(in.resolve("1.txt")) && staging());

        f.cancel(true);
        fx.deliverAll();

        assertThat(in.resolve("1.txt")).hasContent("one");
        assertThat(in.resolve("2.bin")).doesNotExist();
        assertThat(in.resolve("3.txt")).doesNotExist();
        assertThat(fx.framesOf(fx.sentByBrain, org.vancetope.worktarget.core.transfer.UploadRequest.class))
                .extracting(u -> u.remotePath()).noneMatch(t -> t.endsWith("3.txt"));
        fx.assertClean();
    }

    @Test
    void aDirectoryUploadCancelledBeforeTheManifestWritesNothing() throws Exception {
        fixture();
        fx.footFile("c/1.txt", "one".getBytes(StandardCharsets.UTF_8));
        CompletableFuture<DirectoryTransferResult> f = fx.brainConn.requestDirectoryUpload(TransferFixture.SCOPE, "c",
                "uploads", "in", false);

        f.cancel(true);
        fx.deliverAll();

        assertThat(fx.rootDirs.get("uploads").resolve("in/1.txt")).doesNotExist();
        assertThat(fx.framesOf(fx.sentByBrain, org.vancetope.worktarget.core.transfer.UploadRequest.class)).isEmpty();
        fx.assertClean();
    }

    @Test
    void anUndecodableManifestFailsTheDirectoryUploadAtOnceAndWritesNothing() throws Exception {
        fixture();
        fx.footFile("evil/ok.txt", "fine".getBytes(StandardCharsets.UTF_8));
        fx.brainSilent = true;
        CompletableFuture<DirectoryTransferResult> f = fx.brainConn.requestDirectoryUpload(TransferFixture.SCOPE,
                "evil", "uploads", "in", false);
        fx.deliverAll();
        String id = fx.framesOf(fx.sentByBrain, DirectoryUploadRequest.class).get(0).transferId();
        fx.brainSilent = false;

        fx.brainConn.onUndecodable(id, DirectoryManifest.TYPE, "The field 'entries' must be an array.");
        fx.deliverAll();

        assertThat(f).as("failed at once, not at the phase timeout").isDone();
        DirectoryTransferResult r = done(f);
        assertThat(r.ok()).isFalse();
        assertThat(r.code()).isEqualTo(ErrorCode.BAD_FRAME);
        assertThat(r.error()).contains("transfer_dir_manifest could not be decoded", "'entries' must be an array",
                "nothing was written");
        assertThat(fx.rootDirs.get("uploads").resolve("in")).doesNotExist();
        fx.assertClean();
    }

    @Test
    void anUndecodableManifestOfAnotherTransferChangesNothing() throws Exception {
        fixture();
        fx.footFile("evil/ok.txt", "fine".getBytes(StandardCharsets.UTF_8));
        fx.brainSilent = true;
        CompletableFuture<DirectoryTransferResult> f = fx.brainConn.requestDirectoryUpload(TransferFixture.SCOPE,
                "evil", "uploads", "in", false);
        fx.deliverAll();

        fx.brainConn.onUndecodable("someone-else", DirectoryManifest.TYPE, "The field 'entries' must be an array.");
        fx.deliverAll();

        assertThat(f).isNotDone();
    }

    @Test
    void aHostileClientsManifestIsRefusedEntryByEntryAndTheRestLands() throws Exception {
        fixture();
        fx.footFile("evil/ok.txt", "fine".getBytes(StandardCharsets.UTF_8));
        fx.footFile("evil/d/in.txt", "inner".getBytes(StandardCharsets.UTF_8));
        String okHash = sha256("fine".getBytes(StandardCharsets.UTF_8));
        String inHash = sha256("inner".getBytes(StandardCharsets.UTF_8));
        fx.brainSilent = true;     // the client's own manifest is replaced by a hostile one
        CompletableFuture<DirectoryTransferResult> f = fx.brainConn.requestDirectoryUpload(TransferFixture.SCOPE,
                "evil", "uploads", "in", false);
        fx.deliverAll();
        String id = fx.framesOf(fx.sentByBrain, DirectoryUploadRequest.class).get(0).transferId();
        fx.brainSilent = false;
        fx.brainConn.onFrame(new DirectoryManifest(id, "in", "uploads", true, List.of(
                new DirectoryEntry("ok.txt", DirectoryEntry.Kind.FILE, 4, okHash),
                new DirectoryEntry("../x", DirectoryEntry.Kind.FILE, 4, okHash),
                new DirectoryEntry("/abs", DirectoryEntry.Kind.FILE, 4, okHash),
                new DirectoryEntry("l", DirectoryEntry.Kind.LINK, 0, null),
                new DirectoryEntry("l/through.txt", DirectoryEntry.Kind.FILE, 4, okHash),
                new DirectoryEntry("d", DirectoryEntry.Kind.DIRECTORY, 0, null),
                new DirectoryEntry("d/../../y", DirectoryEntry.Kind.FILE, 4, okHash),
                new DirectoryEntry("d/in.txt", DirectoryEntry.Kind.FILE, 5, inHash),
                new DirectoryEntry("nolisted/z.txt", DirectoryEntry.Kind.FILE, 4, okHash)), null));
        DirectoryTransferResult r = done(f);

        Map<String, DirectoryEntryResult> e = byPath(r);
        for (String refused : List.of("../x", "/abs", "l/through.txt", "d/../../y", "nolisted/z.txt")) {
            assertThat(e.get(refused).status()).as(refused).isEqualTo(DirectoryEntryResult.Status.FAILED);
            assertThat(e.get(refused).code()).as(refused).isEqualTo(ErrorCode.PATH_ESCAPE);
        }
        assertThat(e.get("l/through.txt").error()).contains("link entry");
        assertThat(e.get("l").status()).isEqualTo(DirectoryEntryResult.Status.SKIPPED);
        assertThat(e.get("ok.txt").status()).isEqualTo(DirectoryEntryResult.Status.WRITTEN);
        assertThat(e.get("d/in.txt").status()).isEqualTo(DirectoryEntryResult.Status.WRITTEN);
        Path in = fx.rootDirs.get("uploads").resolve("in");
        assertThat(Files.readString(in.resolve("ok.txt"))).isEqualTo("fine");
        assertThat(Files.readString(in.resolve("d/in.txt"))).isEqualTo("inner");
        assertThat(Files.exists(in.resolve("l"), LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(everything()).as("nothing named x, abs, y or through.txt anywhere")
                .noneMatch(p -> List.of("x", "abs", "y", "through.txt", "z.txt").contains(String.valueOf(p.getFileName())));
        assertThat(fx.framesOf(fx.sentByBrain, org.vancetope.worktarget.core.transfer.UploadRequest.class))
                .as("only the accepted files are asked for").hasSize(2);
        fx.assertClean();
    }

    @Test
    void aClientThatUnderstatesItsSizesIsHeldToTheByteLimitByWhatLanded() throws Exception {
        fixture(TransferSettings.defaults().toBuilder().maxDirectoryBytes(10).build(),
                Set.of(TransferCapability.DIRECTORY));
        byte[] eight = "12345678".getBytes(StandardCharsets.UTF_8);
        for (String n : List.of("a", "b", "c")) {
            fx.footFile("evil/" + n, eight);
        }
        fx.brainSilent = true;
        CompletableFuture<DirectoryTransferResult> f = fx.brainConn.requestDirectoryUpload(TransferFixture.SCOPE,
                "evil", "uploads", "in", false);
        fx.deliverAll();
        String id = fx.framesOf(fx.sentByBrain, DirectoryUploadRequest.class).get(0).transferId();
        fx.brainSilent = false;
        fx.brainConn.onFrame(new DirectoryManifest(id, "in", "uploads", false, List.of(
                new DirectoryEntry("a", DirectoryEntry.Kind.FILE, 1, sha256(eight)),
                new DirectoryEntry("b", DirectoryEntry.Kind.FILE, 1, sha256(eight)),
                new DirectoryEntry("c", DirectoryEntry.Kind.FILE, 1, sha256(eight))), null));
        DirectoryTransferResult r = done(f);

        Map<String, DirectoryEntryResult> e = byPath(r);
        assertThat(e.get("a").code()).as("larger than its entry said").isEqualTo(ErrorCode.HASH_MISMATCH);
        assertThat(e.get("b").code()).isEqualTo(ErrorCode.HASH_MISMATCH);
        assertThat(e.get("c").code()).as("beyond maxDirectoryBytes by what landed").isEqualTo(ErrorCode.SIZE_LIMIT);
        assertThat(fx.rootDirs.get("uploads").resolve("in/c")).doesNotExist();
        fx.assertClean();
    }

    @Test
    void aHostileServersManifestIsRefusedEntryByEntryOnTheClient() throws Exception {
        fixture();
        String h = sha256(new byte[0]);
        fx.footConn.onFrame(new DirectoryManifest("d-1", "got", null, false, List.of(
                new DirectoryEntry("../x", DirectoryEntry.Kind.FILE, 0, h),
                new DirectoryEntry("/abs", DirectoryEntry.Kind.DIRECTORY, 0, null),
                new DirectoryEntry("l", DirectoryEntry.Kind.LINK, 0, null),
                new DirectoryEntry("l/x", DirectoryEntry.Kind.DIRECTORY, 0, null),
                new DirectoryEntry("ok", DirectoryEntry.Kind.DIRECTORY, 0, null),
                new DirectoryEntry("ok", DirectoryEntry.Kind.FILE, 0, h),
                new DirectoryEntry("ok/f", DirectoryEntry.Kind.FILE, 0, "md5:nope")), null));
        fx.deliverAll();

        DirectoryManifestResponse resp = fx.framesOf(fx.sentByFoot, DirectoryManifestResponse.class).get(0);
        assertThat(resp.ok()).isTrue();
        Map<String, ErrorCode> refused = resp.refused().stream()
                .collect(Collectors.toMap(x -> x.path() + "|" + x.kind().wire(), DirectoryEntryResult::code));
        assertThat(refused).containsOnly(Map.entry("../x|file", ErrorCode.PATH_ESCAPE),
                Map.entry("/abs|dir", ErrorCode.PATH_ESCAPE), Map.entry("l/x|dir", ErrorCode.PATH_ESCAPE),
                Map.entry("ok|file", ErrorCode.INVALID_PARAMS), Map.entry("ok/f|file", ErrorCode.INVALID_PARAMS));
        assertThat(fx.footProject.resolve("got/ok")).isEmptyDirectory();
        assertThat(Files.exists(fx.footProject.resolve("got/l"), LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(Files.exists(fx.footProject.resolve("got/l/x"))).isFalse();
    }

    /** Makes, with a shell, a file and a directory (with a file) whose names hold the Latin-1 byte 0xE9. */
    private static void latin1Names(Path top) throws Exception {
        Files.createDirectories(top);
        Files.writeString(top.resolve("ok.txt"), "ok");
        Process p = new ProcessBuilder("sh", "-c", "cd \"$1\" && printf latin > \"$(printf 'caf\\351')\" && mkdir "
                + "\"$(printf 'd\\351r')\" && printf in > \"$(printf 'd\\351r')/x\"", "sh", top.toString()).start();
        assertThat(p.waitFor()).isZero();
    }

    private static void assertNotUtf8EntriesFailedAndNothingLookAlikeLanded(DirectoryTransferResult r, Path got)
            throws IOException {
        Map<String, DirectoryEntryResult> e = byPath(r);
        assertThat(r.ok()).isFalse();
        for (String bad : List.of("caf\uFFFD", "d\uFFFDr", "d\uFFFDr/x")) {
            assertThat(e.get(bad).status()).as(bad).isEqualTo(DirectoryEntryResult.Status.FAILED);
            assertThat(e.get(bad).code()).as(bad).isEqualTo(ErrorCode.INVALID_PARAMS);
            assertThat(e.get(bad).error()).as(bad).contains("not UTF-8 on the sender").contains("Rename it on the sender");
        }
        assertThat(e.get("ok.txt").status()).isEqualTo(DirectoryEntryResult.Status.WRITTEN);
        try (Stream<Path> s = Files.list(got)) {
            assertThat(s.map(x -> x.getFileName().toString()).toList()).as("no look-alike twin").containsExactly("ok.txt");
        }
    }

    @Test
    void namesThatAreNotUtf8AreReportedAndNoLookAlikeLandsOnDownload() throws Exception {
        assumeTrue("UTF-8".equalsIgnoreCase(System.getProperty("sun.jnu.encoding")), "needs a UTF-8 file system encoding");
        fixture();
        latin1Names(fx.rootDirs.get("reports").resolve("site"));
        DirectoryTransferResult r = done(fx.brainConn.sendDirectory(fx.rootDirs.get("reports"), "site", "got", false));
        assertNotUtf8EntriesFailedAndNothingLookAlikeLanded(r, fx.footProject.resolve("got"));
        fx.assertClean();
    }

    @Test
    void namesThatAreNotUtf8AreReportedAndNoLookAlikeLandsOnUpload() throws Exception {
        assumeTrue("UTF-8".equalsIgnoreCase(System.getProperty("sun.jnu.encoding")), "needs a UTF-8 file system encoding");
        fixture();
        latin1Names(fx.footProject.resolve("src"));
        DirectoryTransferResult r = done(fx.brainConn.requestDirectoryUpload(TransferFixture.SCOPE, "src",
                "uploads", "in", false));
        assertNotUtf8EntriesFailedAndNothingLookAlikeLanded(r, fx.rootDirs.get("uploads").resolve("in"));
        fx.assertClean();
    }

    @Test
    void aLinkOnTheReceivingDiskIsNotFollowed() throws Exception {
        fixture();
        Files.createDirectories(fx.footProject.resolve("got"));
        Files.createDirectories(fx.footProject.resolve("elsewhere"));
        Files.createSymbolicLink(fx.footProject.resolve("got/sub"), fx.footProject.resolve("elsewhere"));
        Path site = fx.rootDirs.get("reports").resolve("site");
        Files.createDirectories(site.resolve("sub"));
        Files.writeString(site.resolve("sub/f.txt"), "f");
        Files.writeString(site.resolve("top.txt"), "t");
        DirectoryTransferResult r = done(fx.brainConn.sendDirectory(fx.rootDirs.get("reports"), "site", "got", false));

        Map<String, DirectoryEntryResult> e = byPath(r);
        assertThat(e.get("sub").code()).isEqualTo(ErrorCode.PATH_ESCAPE);
        assertThat(e.get("sub/f.txt").code()).isEqualTo(ErrorCode.PATH_ESCAPE);
        assertThat(e.get("top.txt").status()).isEqualTo(DirectoryEntryResult.Status.WRITTEN);
        assertThat(fx.footProject.resolve("elsewhere")).isEmptyDirectory();
        fx.assertClean();
    }

    // ---------------------------------------------------------------- failures

    @Test
    void aFileThatChangedAfterTheListingIsReported() throws Exception {
        fixture();
        Path site = fx.rootDirs.get("reports").resolve("site");
        Files.createDirectories(site);
        Files.writeString(site.resolve("a.txt"), "one");
        Files.writeString(site.resolve("b.txt"), "two");
        fx.footSilent = true;
        CompletableFuture<DirectoryTransferResult> f = fx.brainConn.sendDirectory(fx.rootDirs.get("reports"), "site",
                "got", false);
        fx.deliverAll();
        Files.delete(site.resolve("b.txt"));      // gone between listing and sending
        DirectoryManifest m = fx.framesOf(fx.sentByBrain, DirectoryManifest.class).get(0);
        fx.footSilent = false;
        fx.footConn.onFrame(m);
        DirectoryTransferResult r = done(f);

        assertThat(r.ok()).isFalse();
        assertThat(byPath(r).get("a.txt").status()).isEqualTo(DirectoryEntryResult.Status.WRITTEN);
        assertThat(byPath(r).get("b.txt").code()).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(Files.exists(fx.footProject.resolve("got/b.txt"))).isFalse();
        fx.assertClean();
    }

    @Test
    void aTreeWithMoreEntriesThanTheLimitIsRefusedBeforeAnythingIsSent() throws Exception {
        fixture(TransferSettings.defaults().toBuilder().maxDirectoryEntries(3).build(),
                Set.of(TransferCapability.DIRECTORY));
        tree(fx.rootDirs.get("reports").resolve("site"));
        DirectoryTransferResult r = done(fx.brainConn.sendDirectory(fx.rootDirs.get("reports"), "site", "got", false));
        assertThat(r.code()).isEqualTo(ErrorCode.SIZE_LIMIT);
        assertThat(r.error()).contains("maxDirectoryEntries");
        assertThat(fx.sentByBrain).isEmpty();
    }

    @Test
    void aTreeLargerThanTheByteLimitIsRefusedBeforeAnythingIsSent() throws Exception {
        fixture(TransferSettings.defaults().toBuilder().maxDirectoryBytes(1000).build(),
                Set.of(TransferCapability.DIRECTORY));
        tree(fx.footProject.resolve("proj-src"));
        DirectoryTransferResult r = done(fx.brainConn.requestDirectoryUpload(TransferFixture.SCOPE, "proj-src",
                "uploads", "in", false));
        assertThat(r.code()).isEqualTo(ErrorCode.SIZE_LIMIT);
        assertThat(r.error()).contains("maxDirectoryBytes");
        assertThat(fx.rootDirs.get("uploads").resolve("in")).doesNotExist();
    }

    @Test
    void aManifestBeyondTheReceiversLimitIsRefusedAsAWhole() throws Exception {
        fixture(TransferSettings.defaults().toBuilder().maxDirectoryEntries(2).build(),
                Set.of(TransferCapability.DIRECTORY));
        fx.footConn.onFrame(new DirectoryManifest("d-2", "got", null, false, List.of(
                new DirectoryEntry("a", DirectoryEntry.Kind.DIRECTORY, 0, null),
                new DirectoryEntry("b", DirectoryEntry.Kind.DIRECTORY, 0, null),
                new DirectoryEntry("c", DirectoryEntry.Kind.DIRECTORY, 0, null)), null));
        fx.deliverAll();
        DirectoryManifestResponse resp = fx.framesOf(fx.sentByFoot, DirectoryManifestResponse.class).get(0);
        assertThat(resp.ok()).isFalse();
        assertThat(resp.error()).contains("maxDirectoryEntries");
        assertThat(fx.footProject.resolve("got")).doesNotExist();
    }

    @Test
    void aMissingClientDirectoryFailsTheUploadAsAWhole() throws Exception {
        fixture();
        DirectoryTransferResult r = done(fx.brainConn.requestDirectoryUpload(TransferFixture.SCOPE, "nope",
                "uploads", "in", false));
        assertThat(r.ok()).isFalse();
        assertThat(r.code()).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(r.entries()).isEmpty();
        fx.assertClean();
    }

    @Test
    void aConnectionWithoutTheCapabilityRefusesAtOnce() throws Exception {
        fixture(TransferSettings.defaults(), Set.of());
        tree(fx.rootDirs.get("reports").resolve("site"));
        DirectoryTransferResult r = done(fx.brainConn.sendDirectory(fx.rootDirs.get("reports"), "site", "got", false));
        assertThat(r.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(r.error()).contains("transfer.directory");
        assertThat(fx.sentByBrain).isEmpty();
    }

    @Test
    void aClientThatNeverAnswersTimesOut() throws Exception {
        fixture();
        tree(fx.rootDirs.get("reports").resolve("site"));
        fx.footSilent = true;
        CompletableFuture<DirectoryTransferResult> f = fx.brainConn.sendDirectory(fx.rootDirs.get("reports"), "site",
                "got", false);
        fx.advance(TransferSettings.defaults().phaseTimeout().plusSeconds(1));
        DirectoryTransferResult r = done(f);
        assertThat(r.code()).isEqualTo(ErrorCode.TIMEOUT);
    }

    @Test
    void aClosedConnectionFailsAWaitingTransfer() throws Exception {
        fixture();
        tree(fx.rootDirs.get("reports").resolve("site"));
        fx.footSilent = true;
        CompletableFuture<DirectoryTransferResult> f = fx.brainConn.sendDirectory(fx.rootDirs.get("reports"), "site",
                "got", false);
        fx.brainConn.onClose();
        assertThat(f).isDone();
        assertThat(f.join().code()).isEqualTo(ErrorCode.OFFLINE);
    }
}
