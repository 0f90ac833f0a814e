package org.vancetope.worktarget.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.FileToolSettings;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The behaviour of the nine file tools, written once and run by every backend on every file system
 * flavour: Jimfs (unix and windows) and the real disk. A backend test extends this class (typically
 * as three {@code @Nested} classes, one per {@link Flavour}) and supplies one factory method.
 *
 * <pre>{@code
 * class LocalBackendContractTest {
 *     @Nested class JimfsUnix extends FileToolsContract {
 *         protected Flavour flavour() { return Flavour.JIMFS_UNIX; }
 *         protected FileToolsFixture createFixture(Path base) {
 *             LocalBackend b = LocalBackend.builder().workDirectory(base).build();
 *             return FileToolsFixture.of(b.tools(), b.workDirectory(), CTX);
 *         }
 *     }
 * }
 * }</pre>
 *
 * <p>Cases that need the operating system (FIFOs, sparse files) run only on {@link Flavour#REAL_DISK};
 * they are reported as skipped elsewhere. The limit cases assume the backend runs with
 * {@link FileToolSettings#defaults()} in this JVM.
 */
public abstract class FileToolsContract {
    /** For subclasses: a backend's test extends this class. */
    protected FileToolsContract() {
    }

    /** Where the contract runs. */
    public enum Flavour {
        /** Jimfs with a unix configuration (POSIX permissions, symlinks). */
        JIMFS_UNIX,
        /** Jimfs with a windows configuration ({@code C:\}, case-insensitive). */
        JIMFS_WINDOWS,
        /** The real disk, in a JUnit {@code @TempDir}. */
        REAL_DISK
    }

    @TempDir
    Path tempDir;

    private FileSystem jimfs;
    /** The fixture of the current test. */
    protected FileToolsFixture f;
    /** A directory outside the work directory, holding {@code secret.txt}. */
    protected Path outside;

    /**
     * The flavour this class runs on.
     *
     * @return the flavour
     */
    protected abstract Flavour flavour();

    /**
     * Builds the backend under test.
     *
     * @param base an empty directory on the flavour's file system; the backend's work directory (or its
     *        workspace root) goes here
     * @return the fixture: the tools, the directory they see as {@code "."}, and the caller
     * @throws Exception when the backend cannot be built
     */
    protected abstract FileToolsFixture createFixture(Path base) throws Exception;

    @BeforeEach
    void setUpContract() throws Exception {
        Path top;
        switch (flavour()) {
            case JIMFS_UNIX -> {
                jimfs = Jimfs.newFileSystem(Configuration.unix().toBuilder()
                        .setAttributeViews("basic", "owner", "posix", "unix").build());
                top = Files.createDirectories(jimfs.getPath("/contract"));
            }
            case JIMFS_WINDOWS -> {
                jimfs = Jimfs.newFileSystem(Configuration.windows());
                top = Files.createDirectories(jimfs.getPath("C:\\contract"));
            }
            default -> top = tempDir;
        }
        outside = Files.createDirectories(top.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), "TOP SECRET\n");
        f = createFixture(Files.createDirectories(top.resolve("base")));
    }

    @AfterEach
    void tearDownContract() throws IOException {
        if (jimfs != null) {
            jimfs.close();
        }
    }

    /**
     * Whether the test runs on the real disk.
     *
     * @return true for {@link Flavour#REAL_DISK}
     */
    protected boolean realDisk() {
        return flavour() == Flavour.REAL_DISK;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Object o) {
        return (List<Map<String, Object>>) o;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    private static List<Object> paths(Object files) {
        return list(files).stream().map(m -> m.get("path")).toList();
    }

    private void assertOutsideUntouched() throws IOException {
        try (Stream<Path> s = Files.list(outside)) {
            assertThat(s.map(p -> p.getFileName().toString()).toList()).containsExactly("secret.txt");
        }
        assertThat(Files.readString(outside.resolve("secret.txt"))).isEqualTo("TOP SECRET\n");
    }

    // ================================================================== read / write / edit

    @Test
    void writeThenReadRoundTrips() throws Exception {
        Map<String, Object> w = f.call("file_write", "path", "notes/a.txt", "content", "héllo\nwörld\n");
        assertThat(w.get("path")).isEqualTo("notes/a.txt");
        assertThat(w.get("created")).isEqualTo(true);
        Map<String, Object> r = f.call("file_read", "path", "notes/a.txt");
        assertThat(r.get("content")).isEqualTo("héllo\nwörld\n");
        assertThat(r.get("totalLines")).isEqualTo(2);
    }

    @Test
    void writeCreatesMissingParents() throws Exception {
        f.call("file_write", "path", "a/b/c/d.txt", "content", "x");
        assertThat(f.read("a/b/c/d.txt")).isEqualTo("x");
    }

    @Test
    void writeReplacesWithoutLeavingTempFiles() throws Exception {
        f.write("d/x.txt", "old content that is longer");
        Map<String, Object> w = f.call("file_write", "path", "d/x.txt", "content", "new");
        assertThat(w.get("created")).isEqualTo(false);
        assertThat(f.read("d/x.txt")).isEqualTo("new");
        assertThat(f.call("file_list", "path", "d").get("entries")).isEqualTo(List.of("x.txt"));
    }

    @Test
    void writeKeepsPermissionsOfTheReplacedFile() throws Exception {
        assumeTrue(f.workDir().getFileSystem().supportedFileAttributeViews().contains("posix"));
        Path p = f.write("run.sh", "echo old");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-x---"));
        f.call("file_write", "path", "run.sh", "content", "echo new");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(p))).isEqualTo("rwxr-x---");
    }

    @Test
    void writeOntoADirectoryIsRefused() throws Exception {
        f.mkdir("dir");
        assertThat(f.failure("file_write", "path", "dir", "content", "x").code()).isEqualTo(ErrorCode.INVALID_PARAMS);
    }

    @Test
    void readOfAMissingFileIsNotFound() {
        ToolException e = f.failure("file_read", "path", "nope.txt");
        assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(e.getMessage()).contains("'nope.txt'");
    }

    @Test
    void readOfADirectorySuggestsFileList() throws Exception {
        f.mkdir("dir");
        ToolException e = f.failure("file_read", "path", "dir");
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).contains("file_list");
    }

    @Test
    void readPagesAndSaysWhereTheNextPageStarts() throws Exception {
        f.write("p.txt", "1\n2\n3\n4\n5\n");
        Map<String, Object> r = f.call("file_read", "path", "p.txt", "startLine", 2, "maxLines", 2);
        assertThat(r.get("content")).isEqualTo("2\n3\n");
        assertThat(r.get("truncated")).isEqualTo(true);
        assertThat(r.get("nextStartLine")).isEqualTo(4);
    }

    @Test
    void editReplacesTheOneOccurrenceAndShowsADiff() throws Exception {
        f.write("e.txt", "alpha\nbeta\ngamma\n");
        Map<String, Object> r = f.call("file_edit", "path", "e.txt", "oldText", "beta", "newText", "BETA");
        assertThat(f.read("e.txt")).isEqualTo("alpha\nBETA\ngamma\n");
        assertThat((String) r.get("diff")).contains("-beta").contains("+BETA");
    }

    @Test
    void editNotFoundLeavesTheFileUntouched() throws Exception {
        f.write("e.txt", "alpha\n");
        ToolException e = f.failure("file_edit", "path", "e.txt", "oldText", "omega", "newText", "x");
        assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(e.getMessage()).contains("file_read");
        assertThat(f.read("e.txt")).isEqualTo("alpha\n");
    }

    @Test
    void editAmbiguousLeavesTheFileUntouchedAndSaysHowToFix() throws Exception {
        f.write("e.txt", "x\nx\n");
        ToolException e = f.failure("file_edit", "path", "e.txt", "oldText", "x", "newText", "y");
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).contains("2 times").contains("surrounding");
        assertThat(f.read("e.txt")).isEqualTo("x\nx\n");
    }

    // ===== multi-edit, multi-read, binary reads

    private static Map<String, Object> edit(String oldText, String newText) {
        return Map.of("oldText", oldText, "newText", newText);
    }

    @Test
    void editsAreAppliedInOrderEachToTheTextThePreviousOnesLeft() throws Exception {
        f.write("m.txt", "one\ntwo\nthree\n");
        Map<String, Object> r = f.call("file_edit", "path", "m.txt",
                "edits", List.of(edit("one", "ONE"), edit("ONE\ntwo", "ONE\n2"), edit("three", "3")));
        assertThat(f.read("m.txt")).isEqualTo("ONE\n2\n3\n");
        assertThat(r.get("replacements")).isEqualTo(3);
        assertThat(r.get("changed")).isEqualTo(true);
        assertThat(r.get("dryRun")).isEqualTo(false);
        assertThat((String) r.get("diff")).contains("-one").contains("+ONE").contains("-three").contains("+3");
    }

    @Test
    void editsWhereTheThirdFailsLeaveTheFileByteIdenticalAndNameTheEdit() throws Exception {
        byte[] before = "alpha\r\nbeta\r\ngamma\r\n".getBytes(StandardCharsets.UTF_8);
        f.write("m.txt", before);
        ToolException e = f.failure("file_edit", "path", "m.txt",
                "edits", List.of(edit("alpha", "A"), edit("beta", "B"), edit("delta", "D")));
        assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(e.getMessage()).contains("edits[2]").contains("not found").contains("unchanged");
        assertThat(Files.readAllBytes(f.path("m.txt"))).isEqualTo(before);
    }

    @Test
    void editsWithAnAmbiguousEditNameItAndSuggestReplaceAll() throws Exception {
        f.write("m.txt", "x\nx\ny\n");
        ToolException e = f.failure("file_edit", "path", "m.txt", "edits", List.of(edit("y", "Y"), edit("x", "z")));
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).contains("edits[1]").contains("2 times").contains("replaceAll");
        assertThat(f.read("m.txt")).isEqualTo("x\nx\ny\n");
    }

    @Test
    void editsSeeTheTextOfTheEditsBeforeThem() throws Exception {
        f.write("m.txt", "a\n");
        ToolException e = f.failure("file_edit", "path", "m.txt", "edits", List.of(edit("a", "b"), edit("a", "c")));
        assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(e.getMessage()).contains("edits[1]");
        assertThat(f.read("m.txt")).isEqualTo("a\n");
    }

    @Test
    void replaceAllReplacesEveryOccurrenceAndSaysHowMany() throws Exception {
        f.write("r.txt", "foo bar foo\nfoo\n");
        Map<String, Object> r = f.call("file_edit", "path", "r.txt", "oldText", "foo", "newText", "baz",
                "replaceAll", true);
        assertThat(f.read("r.txt")).isEqualTo("baz bar baz\nbaz\n");
        assertThat(r.get("replacements")).isEqualTo(3);
        assertThat(r.get("line")).isEqualTo(1);
    }

    @Test
    void replaceAllInsideEditsReplacesEveryOccurrence() throws Exception {
        f.write("r.txt", "aaa\n");
        Map<String, Object> r = f.call("file_edit", "path", "r.txt", "edits",
                List.of(Map.of("oldText", "aa", "newText", "b", "replaceAll", true), edit("a\n", "c\n")));
        assertThat(f.read("r.txt")).isEqualTo("bc\n");
        assertThat(r.get("replacements")).isEqualTo(2);
    }

    @Test
    void dryRunReturnsTheDiffWithoutWriting() throws Exception {
        f.write("d.txt", "keep\n");
        Map<String, Object> r = f.call("file_edit", "path", "d.txt", "edits", List.of(edit("keep", "lose")),
                "dryRun", true);
        assertThat(r.get("dryRun")).isEqualTo(true);
        assertThat(r.get("changed")).isEqualTo(true);
        assertThat((String) r.get("diff")).contains("-keep").contains("+lose");
        assertThat(f.read("d.txt")).isEqualTo("keep\n");
        assertThat(f.call("file_list").get("entries")).isEqualTo(List.of("d.txt"));
    }

    @Test
    void dryRunOfTheSingleFormNeverWritesEither() throws Exception {
        f.write("d.txt", "keep\n");
        Map<String, Object> r = f.call("file_edit", "path", "d.txt", "oldText", "keep", "newText", "lose",
                "dryRun", true);
        assertThat(r.get("replacements")).isEqualTo(1);
        assertThat(f.read("d.txt")).isEqualTo("keep\n");
    }

    @Test
    void emptyEditsAreRefused() throws Exception {
        f.write("e.txt", "x\n");
        ToolException e = f.failure("file_edit", "path", "e.txt", "edits", List.of());
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).contains("edits").contains("empty");
        assertThat(f.read("e.txt")).isEqualTo("x\n");
    }

    @Test
    void editsTogetherWithOldTextAreRefused() throws Exception {
        f.write("e.txt", "x\n");
        ToolException e = f.failure("file_edit", "path", "e.txt", "oldText", "x", "newText", "y",
                "edits", List.of(edit("x", "z")));
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).contains("not both");
        assertThat(f.read("e.txt")).isEqualTo("x\n");
    }

    @Test
    void editWithoutOldTextOrEditsSaysWhatToPass() throws Exception {
        f.write("e.txt", "x\n");
        ToolException e = f.failure("file_edit", "path", "e.txt");
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).contains("oldText").contains("edits");
    }

    @Test
    void editsEntryWithAnUnknownKeyOrNoOldTextIsRefusedByIndex() throws Exception {
        f.write("e.txt", "x\n");
        ToolException unknown = f.failure("file_edit", "path", "e.txt",
                "edits", List.of(edit("x", "y"), Map.of("old", "x", "newText", "y")));
        assertThat(unknown.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(unknown.getMessage()).contains("edits[1]").contains("'old'");
        ToolException missing = f.failure("file_edit", "path", "e.txt", "edits", List.of(Map.of("newText", "y")));
        assertThat(missing.getMessage()).contains("edits[0]").contains("oldText");
        assertThat(f.read("e.txt")).isEqualTo("x\n");
    }

    @Test
    void editsThroughAnEscapingPathAreRefused() throws Exception {
        ToolException e = f.failure("file_edit", "path", "../outside/secret.txt",
                "edits", List.of(edit("TOP", "NO")));
        assertThat(e.code()).isEqualTo(ErrorCode.PATH_ESCAPE);
        assertOutsideUntouched();
    }

    @Test
    void readOfSeveralPathsReturnsOneEntryPerPathInOrder() throws Exception {
        f.write("b.txt", "bee\n");
        f.write("a/c.txt", "sea\n");
        Map<String, Object> r = f.call("file_read", "paths", List.of("b.txt", "a/c.txt"));
        List<Map<String, Object>> files = list(r.get("files"));
        assertThat(paths(files)).containsExactly("b.txt", "a/c.txt");
        assertThat(files.get(0).get("content")).isEqualTo("bee\n");
        assertThat(files.get(1).get("content")).isEqualTo("sea\n");
        assertThat(files.get(1).get("totalLines")).isEqualTo(1);
        assertThat(r.get("truncated")).isEqualTo(false);
    }

    @Test
    void readOfSeveralPathsGivesAMissingFileItsOwnError() throws Exception {
        f.write("here.txt", "yes\n");
        List<Map<String, Object>> files = list(f.call("file_read", "paths", List.of("gone.txt", "here.txt"))
                .get("files"));
        assertThat(files.get(0).get("path")).isEqualTo("gone.txt");
        Map<String, Object> error = map(files.get(0).get("error"));
        assertThat(error.get("code")).isEqualTo("not_found");
        assertThat((String) error.get("message")).contains("'gone.txt'");
        assertThat(files.get(0)).doesNotContainKey("content");
        assertThat(files.get(1).get("content")).isEqualTo("yes\n");
    }

    @Test
    void readOfSeveralPathsFailsOnlyTheEntryThatEscapes() throws Exception {
        f.write("in.txt", "inside\n");
        Map<String, Object> r = f.call("file_read", "paths", List.of("../outside/secret.txt", "in.txt"));
        List<Map<String, Object>> files = list(r.get("files"));
        assertThat(map(files.get(0).get("error")).get("code")).isEqualTo("path_escape");
        assertThat(files.get(1).get("content")).isEqualTo("inside\n");
        assertThat(r.toString()).doesNotContain("TOP SECRET").doesNotContain(outside.toString());
    }

    @Test
    void readWithBothPathAndPathsIsRefused() throws Exception {
        f.write("a.txt", "a\n");
        ToolException e = f.failure("file_read", "path", "a.txt", "paths", List.of("a.txt"));
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).contains("not both");
    }

    @Test
    void readWithNeitherPathNorPathsSaysWhatToPass() {
        ToolException e = f.failure("file_read", "startLine", 2);
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).contains("path").contains("paths");
    }

    @Test
    void readWithEmptyPathsIsRefused() {
        ToolException e = f.failure("file_read", "paths", List.of());
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).contains("empty");
    }

    @Test
    void readOfMoreThanTheMostFilesIsRefusedAndNamesTheSetting() {
        List<String> many = java.util.stream.IntStream.rangeClosed(1, FileToolSettings.DEFAULT_READ_MAX_FILES + 1)
                .mapToObj(i -> "f" + i + ".txt").toList();
        ToolException e = f.failure("file_read", "paths", many);
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).contains("readMaxFiles").contains("at most " + FileToolSettings.DEFAULT_READ_MAX_FILES);
    }

    @Test
    void readOfSeveralBigFilesSharesTheResultBudgetAndMarksThemTruncated() throws Exception {
        List<String> names = new java.util.ArrayList<>();
        String big = ("z".repeat(99) + "\n").repeat(1500);      // 150,000 chars each, 20 are ~3 MB
        for (int i = 0; i < FileToolSettings.DEFAULT_READ_MAX_FILES; i++) {
            names.add("big" + i + ".txt");
            f.write("big" + i + ".txt", big);
        }
        Map<String, Object> r = f.call("file_read", "paths", names, "maxChars", 100_000);
        assertThat(jsonBytes(r)).isLessThanOrEqualTo(FileToolSettings.DEFAULT_RESULT_MAX_BYTES);
        for (Map<String, Object> file : list(r.get("files"))) {
            assertThat(file.get("truncated")).isEqualTo(true);
            assertThat((String) file.get("content")).isNotEmpty();
            assertThat(file.get("nextStartLine")).isNotNull();
        }
        assertThat(r.get("truncated")).isEqualTo(true);
        assertThat((String) r.get("hint")).contains("resultMaxBytes");
    }

    @Test
    void readOfSeveralFilesGivesWhatSmallFilesLeaveToTheBigOne() throws Exception {
        List<String> names = new java.util.ArrayList<>();
        for (int i = 0; i < FileToolSettings.DEFAULT_READ_MAX_FILES - 1; i++) {
            names.add("small" + i + ".txt");
            f.write("small" + i + ".txt", "tiny\n");
        }
        names.add("big.txt");
        f.write("big.txt", ("y".repeat(99) + "\n").repeat(1000));       // 100,000 chars: more than an equal share
        Map<String, Object> r = f.call("file_read", "paths", names, "maxChars", 100_000);
        Map<String, Object> bigEntry = list(r.get("files")).get(names.size() - 1);
        assertThat((String) bigEntry.get("content")).hasSize(100_000);
        assertThat(bigEntry.get("truncated")).isEqualTo(false);
        assertThat(jsonBytes(r)).isLessThanOrEqualTo(FileToolSettings.DEFAULT_RESULT_MAX_BYTES);
    }

    private static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 'I', 'H', 'D',
        'R', 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0};

    @Test
    void readOfABinaryFileWithoutAllowBinaryIsRefusedAndSaysHowToGetIt() throws Exception {
        f.write("img.png", PNG);
        ToolException e = f.failure("file_read", "path", "img.png");
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).contains("binary").contains("allowBinary");
    }

    @Test
    void readOfAnImageWithAllowBinaryReturnsBase64AndItsMediaType() throws Exception {
        f.write("pics/img.png", PNG);
        Map<String, Object> r = f.call("file_read", "path", "pics/img.png", "allowBinary", true);
        assertThat(r.get("path")).isEqualTo("pics/img.png");
        assertThat(r.get("encoding")).isEqualTo("base64");
        assertThat(r.get("mediaType")).isEqualTo("image/png");
        assertThat(((Number) r.get("bytes")).longValue()).isEqualTo(PNG.length);
        assertThat(java.util.Base64.getDecoder().decode((String) r.get("content"))).isEqualTo(PNG);
    }

    @Test
    void readOfAnImageIsRecognisedByItsBytesWhateverItsName() throws Exception {
        f.write("picture.dat", PNG);
        assertThat(f.call("file_read", "path", "picture.dat", "allowBinary", true).get("mediaType"))
                .isEqualTo("image/png");
    }

    @Test
    void readOfAnUnknownBinaryWithAllowBinaryIsAnOctetStream() throws Exception {
        byte[] blob = {1, 2, 0, 3, (byte) 0xFF, 0, 7};
        f.write("blob.bin", blob);
        Map<String, Object> r = f.call("file_read", "path", "blob.bin", "allowBinary", true);
        assertThat(r.get("mediaType")).isEqualTo("application/octet-stream");
        assertThat(java.util.Base64.getDecoder().decode((String) r.get("content"))).isEqualTo(blob);
    }

    @Test
    void readOfATextFileWithAllowBinaryIsUnchanged() throws Exception {
        f.write("t.txt", "plain\ntext\n");
        Map<String, Object> plain = f.call("file_read", "path", "t.txt");
        Map<String, Object> allowed = f.call("file_read", "path", "t.txt", "allowBinary", true);
        assertThat(allowed).isEqualTo(plain).doesNotContainKey("encoding");
    }

    @Test
    void readOfABinaryFileOverTheCapFailsSizeLimitAndSaysWhatToDo() throws Exception {
        byte[] big = new byte[FileToolSettings.DEFAULT_BINARY_READ_MAX_BYTES + 1];
        big[0] = 0;
        big[big.length - 1] = 1;
        f.write("big.bin", big);
        ToolException e = f.failure("file_read", "path", "big.bin", "allowBinary", true);
        assertThat(e.code()).isEqualTo(ErrorCode.SIZE_LIMIT);
        assertThat(e.getMessage()).contains("binaryReadMaxBytes").contains("exec_run")
                .contains(String.valueOf(big.length));
    }

    @Test
    void readOfABinaryFileInPathsIsItsOwnEntryNextToText() throws Exception {
        f.write("img.png", PNG);
        f.write("t.txt", "text\n");
        List<Map<String, Object>> files = list(f.call("file_read", "paths", List.of("img.png", "t.txt", "img.png"),
                "allowBinary", true).get("files"));
        assertThat(files.get(0).get("encoding")).isEqualTo("base64");
        assertThat(files.get(1).get("content")).isEqualTo("text\n");
        assertThat(files.get(2).get("mediaType")).isEqualTo("image/png");
    }

    @Test
    void readOfABinaryFileInPathsWithoutAllowBinaryFailsOnlyThatEntry() throws Exception {
        f.write("img.png", PNG);
        f.write("t.txt", "text\n");
        List<Map<String, Object>> files = list(f.call("file_read", "paths", List.of("img.png", "t.txt"))
                .get("files"));
        assertThat(map(files.get(0).get("error")).get("code")).isEqualTo("invalid_params");
        assertThat(files.get(1).get("content")).isEqualTo("text\n");
    }

    // ================================================================== list / find

    @Test
    void listIsSortedWithDirectoriesMarkedAndEmptyDirectoriesShown() throws Exception {
        f.write("b.txt", "");
        f.write("a/x.txt", "");
        f.mkdir("empty");
        assertThat(f.call("file_list").get("entries")).isEqualTo(List.of("a/", "b.txt", "empty/"));
        assertThat(f.call("file_list", "path", "empty").get("entries")).isEqualTo(List.of());
    }

    @Test
    void listOfAMissingDirectoryIsNotFound() {
        assertThat(f.failure("file_list", "path", "nope").code()).isEqualTo(ErrorCode.NOT_FOUND);
    }

    @Test
    void listOfAFileSuggestsFileRead() throws Exception {
        f.write("a.txt", "");
        ToolException e = f.failure("file_list", "path", "a.txt");
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).contains("file_read");
    }

    @Test
    void findDoubleStarGlobAlsoMatchesAtTheWalkRoot() throws Exception {
        f.write("pom.xml", "");
        f.write("mod/pom.xml", "");
        f.write("mod/src/Main.java", "");
        assertThat(paths(f.call("file_find", "pathGlob", "**/pom.xml").get("files")))
                .containsExactly("mod/pom.xml", "pom.xml");
    }

    @Test
    void findPrunesGeneratedDirectoriesAndCountsThem() throws Exception {
        f.write("src/A.java", "");
        f.write("target/classes/A.class", "");
        f.write("node_modules/x/index.js", "");
        Map<String, Object> r = f.call("file_find");
        assertThat(paths(r.get("files"))).containsExactly("src/A.java");
        assertThat(r.get("skippedGeneratedDirs")).isEqualTo(2);
        assertThat(paths(f.call("file_find", "includeGenerated", true).get("files"))).hasSize(3);
    }

    @Test
    void findLimitTruncates() throws Exception {
        for (int i = 0; i < 5; i++) {
            f.write("f" + i + ".txt", "");
        }
        Map<String, Object> r = f.call("file_find", "limit", 2);
        assertThat(paths(r.get("files"))).containsExactly("f0.txt", "f1.txt");
        assertThat(r.get("truncated")).isEqualTo(true);
        assertThat(r.get("totalMatches")).isEqualTo(5);
    }

    // ================================================================== grep / head_tail / count / delete

    @Test
    void grepReportsRootRelativePathsAndLineNumbers() throws Exception {
        f.write("src/a/A.java", "class A {\n  // TODO fix\n}\n");
        f.write("src/B.java", "class B {}\n");
        List<Map<String, Object>> m = list(f.call("file_grep", "pattern", "TODO\\s+\\w+", "path", "src").get("matches"));
        assertThat(m).containsExactly(Map.of("path", "src/a/A.java", "line", 2, "text", "  // TODO fix"));
    }

    @Test
    void grepPathGlobLimitsTheFilesSearched() throws Exception {
        f.write("a/x.md", "hit\n");
        f.write("a/x.txt", "hit\n");
        assertThat(paths(f.call("file_grep", "pattern", "hit", "pathGlob", "**/*.md").get("matches")))
                .containsExactly("a/x.md");
    }

    @Test
    void grepOfOneFileWithContext() throws Exception {
        f.write("one.txt", "a\nhit\nb\n");
        List<Map<String, Object>> m = list(f.call("file_grep", "pattern", "hit", "path", "one.txt",
                "contextBefore", 1, "contextAfter", 1).get("matches"));
        assertThat(m).hasSize(1);
        assertThat(m.get(0).get("before")).isEqualTo(List.of("a"));
        assertThat(m.get(0).get("after")).isEqualTo(List.of("b"));
    }

    @Test
    void countsMatchingLinesWithAPattern() throws Exception {
        f.write("a.txt", "TODO 1\nok\nTODO 2\n");
        f.write("b.txt", "TODO 3\n");
        Map<String, Object> r = f.call("file_count", "pattern", "^TODO");
        assertThat(r.get("matchingLines")).isEqualTo(3);
        assertThat(r.get("filesWithMatches")).isEqualTo(2);
    }

    @Test
    void linksThatStayInsideTheWorkDirectoryWork() throws Exception {
        f.write("real/data.txt", "inside\n");
        Files.createSymbolicLink(f.path("alias"), f.path("real"));
        Map<String, Object> r = f.call("file_read", "path", "alias/data.txt");
        assertThat(r.get("content")).isEqualTo("inside\n");
        assertThat(r.get("path")).isEqualTo("real/data.txt");
    }

    @Test
    void grepOfABadPatternIsInvalidParams() {
        assertThat(f.failure("file_grep", "pattern", "(unclosed").code()).isEqualTo(ErrorCode.INVALID_PARAMS);
    }

    @Test
    void grepSkipsAndCountsBinaryFiles() throws Exception {
        f.write("bin.dat", new byte[] {'h', 'i', 0, 1});
        f.write("t.txt", "hi\n");
        Map<String, Object> r = f.call("file_grep", "pattern", "hi");
        assertThat(list(r.get("matches"))).hasSize(1);
        assertThat(r.get("skippedBinary")).isEqualTo(1);
    }

    @Test
    void headTailShowsBothEnds() throws Exception {
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i <= 100; i++) {
            sb.append(i).append('\n');
        }
        f.write("log.txt", sb.toString());
        Map<String, Object> r = f.call("file_head_tail", "path", "log.txt", "head", 2, "tail", 2);
        assertThat(r.get("head")).isEqualTo("1\n2\n");
        assertThat(r.get("tail")).isEqualTo("99\n100\n");
    }

    @Test
    void countsLinesCharsAndBytesOfATree() throws Exception {
        f.write("a.txt", "one\ntwo\n");
        f.write("d/b.txt", "three");
        Map<String, Object> r = f.call("file_count");
        assertThat(r.get("files")).isEqualTo(2);
        assertThat(r.get("lines")).isEqualTo(3);
        assertThat(r.get("bytes")).isEqualTo(13);
    }

    @Test
    void deleteRemovesAFile() throws Exception {
        f.write("gone.txt", "x");
        assertThat(f.call("file_delete", "path", "gone.txt").get("deleted")).isEqualTo(true);
        assertThat(Files.exists(f.path("gone.txt"))).isFalse();
    }

    @Test
    void deleteOfAMissingFileReturnsFalse() throws Exception {
        assertThat(f.call("file_delete", "path", "never.txt").get("deleted")).isEqualTo(false);
    }

    @Test
    void deleteOfADirectoryIsRefused() throws Exception {
        f.mkdir("keep");
        assertThat(f.failure("file_delete", "path", "keep").code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(Files.isDirectory(f.path("keep"))).isTrue();
    }

    @Test
    void unknownParameterIsRefused() {
        assertThat(f.failure("file_read", "path", "a.txt", "encoding", "latin1").code())
                .isEqualTo(ErrorCode.INVALID_PARAMS);
    }

    // ================================================================== limits: no single call takes the system down

    /** The size of the compact UTF-8 JSON a tree serialises to, written out here: an oracle independent of the tools. */
    private static int jsonBytes(Object v) {
        StringBuilder sb = new StringBuilder();
        json(sb, v);
        return sb.toString().getBytes(StandardCharsets.UTF_8).length;
    }

    private static void json(StringBuilder sb, Object v) {
        if (v instanceof Map<?, ?> m) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                sb.append(first ? "" : ",");
                first = false;
                json(sb, String.valueOf(e.getKey()));
                sb.append(':');
                json(sb, e.getValue());
            }
            sb.append('}');
        } else if (v instanceof Collection<?> c) {
            sb.append('[');
            boolean first = true;
            for (Object o : c) {
                sb.append(first ? "" : ",");
                first = false;
                json(sb, o);
            }
            sb.append(']');
        } else if (v instanceof String str) {
            sb.append('"');
            for (char c : str.toCharArray()) {
                if (c == '"' || c == '\\') {
                    sb.append('\\').append(c);
                } else if (c == '\n') {
                    sb.append("\\n");
                } else if (c < 0x20) {
                    sb.append(String.format("\\u%04x", (int) c));
                } else {
                    sb.append(c);
                }
            }
            sb.append('"');
        } else {
            sb.append(v);
        }
    }

    @Test
    void grepWithMostContextStaysWithinTheResultBudgetAndSaysHowToGetTheRest() throws Exception {
        // 2,000 matching lines of ~600 chars: with 20 lines of context around each, 200 matches are ~5 MB of JSON
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i <= 2000; i++) {
            sb.append("hit ").append(i).append(' ').append("x".repeat(590)).append('\n');
        }
        f.write("wide.txt", sb.toString());
        Map<String, Object> r = f.call("file_grep", "pattern", "hit", "contextBefore", 20, "contextAfter", 20);
        List<Map<String, Object>> m = list(r.get("matches"));
        assertThat(jsonBytes(m)).isLessThanOrEqualTo(FileToolSettings.DEFAULT_RESULT_MAX_BYTES);
        assertThat(m).isNotEmpty();
        for (int i = 0; i < m.size(); i++) {
            assertThat(m.get(i).get("line")).isEqualTo(i + 1);
            assertThat(list(m.get(i).get("after"))).hasSize(20);
        }
        assertThat(r.get("count")).isEqualTo(m.size());
        assertThat(r.get("truncated")).isEqualTo(true);
        assertThat((String) r.get("hint")).contains("resultMaxBytes").contains("contextBefore")
                .contains("'wide.txt' line " + (m.size() + 1));
    }

    @Test
    void findResultStaysWithinTheResultBudgetAndSaysHowToGetTheRest() throws Exception {
        StringBuilder dir = new StringBuilder();
        for (int i = 0; i < 12; i++) {   // 12 levels: within the default maxDepth
            dir.append(i == 0 ? "" : "/").append("d").append(i).append("x".repeat(245));
        }
        for (int i = 0; i < 400; i++) {   // 400 paths of ~3,000 chars: over 1 MiB of JSON
            f.write(dir + "/f" + i + ".txt", "");
        }
        Map<String, Object> r = f.call("file_find", "limit", 2000);
        List<Map<String, Object>> files = list(r.get("files"));
        assertThat(jsonBytes(files)).isLessThanOrEqualTo(FileToolSettings.DEFAULT_RESULT_MAX_BYTES);
        assertThat(files).isNotEmpty().hasSizeLessThan(400);
        assertThat(r.get("totalMatches")).isEqualTo(400);
        assertThat(r.get("truncated")).isEqualTo(true);
        assertThat((String) r.get("hint")).contains("resultMaxBytes");
    }

    @Test
    void readOfAFileOverTheTotalsBudgetLeavesTheTotalsUnknownUntilThePageReachesTheEnd() throws Exception {
        // more than the 16 MiB up to which file_read counts a file to its end
        byte[] block = "a line of text that repeats\n".repeat(40_000).getBytes(StandardCharsets.UTF_8);
        int blocks = (int) (FileToolSettings.DEFAULT_READ_TOTALS_MAX_BYTES / block.length) + 1;
        byte[] big = new byte[block.length * blocks];
        for (int i = 0; i < blocks; i++) {
            System.arraycopy(block, 0, big, i * block.length, block.length);
        }
        f.write("big.log", big);
        int lines = 40_000 * blocks;
        Map<String, Object> first = f.call("file_read", "path", "big.log", "maxLines", 3);
        assertThat(first.get("content")).isEqualTo("a line of text that repeats\n".repeat(3));
        assertThat(first.get("totalsKnown")).isEqualTo(false);
        assertThat(first.get("totalLines")).isNull();
        assertThat(first.get("totalChars")).isNull();
        assertThat(first.get("nextStartLine")).isEqualTo(4);
        Map<String, Object> last = f.call("file_read", "path", "big.log", "startLine", lines - 1);
        assertThat(last.get("content")).isEqualTo("a line of text that repeats\n".repeat(2));
        assertThat(last.get("totalsKnown")).isEqualTo(true);
        assertThat(last.get("totalLines")).isEqualTo(lines);
        assertThat(last.get("nextStartLine")).isNull();
        // a page that stops one line short of the end does not count on
        assertThat(f.call("file_read", "path", "big.log", "startLine", lines - 1, "maxLines", 1).get("totalsKnown"))
                .isEqualTo(false);
    }

    @Test
    void readOfASmallFileKnowsItsTotals() throws Exception {
        f.write("s.txt", "one\ntwo\nthree\n");
        Map<String, Object> r = f.call("file_read", "path", "s.txt", "maxLines", 1);
        assertThat(r.get("totalsKnown")).isEqualTo(true);
        assertThat(r.get("totalLines")).isEqualTo(3);
        assertThat(r.get("totalChars")).isEqualTo(14);
    }

    /** 1,000 lines of text, then 10,000 NUL bytes: only the head looks like text. */
    private void plantTextThenNuls(String rel) throws IOException {
        byte[] b = new byte[20_000];
        byte[] head = "text line\n".repeat(1000).getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(head, 0, b, 0, head.length);
        f.write(rel, b);
    }

    @Test
    void readRefusesNulBytesInTheWindowAfterATextHead() throws Exception {
        plantTextThenNuls("odd.dat");
        assertThat(f.call("file_read", "path", "odd.dat", "maxLines", 2).get("content")).isEqualTo("text line\ntext line\n");
        ToolException e = f.failure("file_read", "path", "odd.dat", "startLine", 990, "maxChars", 100_000);
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).contains("NUL").contains("binary");
    }

    @Test
    void headTailRefusesNulBytesBeyondTheFirst8KiB() throws Exception {
        plantTextThenNuls("odd.dat");
        ToolException e = f.failure("file_head_tail", "path", "odd.dat", "head", 1001);
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).contains("binary");
    }

    @Test
    void editOfAFileOverTheWholeFileLimitIsRefusedBeforeItIsRead() throws Exception {
        assumeTrue(realDisk());
        long limit = FileToolSettings.heapDerivedWholeFileMaxBytes();
        Path p = f.write("huge.txt", "needle\n");
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {'\n'}), limit); // sparse: the gap is not written to the disk
        }
        ToolException e = f.failure("file_edit", "path", "huge.txt", "oldText", "needle", "newText", "pin");
        assertThat(e.code()).isEqualTo(ErrorCode.SIZE_LIMIT);
        assertThat(e.getMessage()).contains("wholeFileMaxBytes").contains(String.valueOf(limit)).contains("exec_run");
        assertThat(Files.size(p)).isEqualTo(limit + 1);
    }

    // ================================================================== the library's own files

    /** A staging name as the library makes them (its owner is a process that never ran). */
    private static final String STAGING = ".wt-0000.1.0-0123456789abcdef.part";

    private void plantLibraryFiles() throws IOException {
        f.write(".worktarget/exec/j1.stdout", "needle from a job\nsecond line\n");
        f.write(".worktarget/exec/j1.stderr", "needle on stderr\n");
        f.write(STAGING, "needle in a partial file\n");
        f.write("sub/" + STAGING, "needle in a partial file\n");
        f.write("sub/visible.txt", "needle in a file\n");
    }

    @Test
    void theLibrarysOwnFilesAreNeverListedFoundSearchedOrCounted() throws Exception {
        plantLibraryFiles();
        assertThat(f.call("file_list").get("entries")).isEqualTo(List.of("sub/"));
        assertThat(f.call("file_list", "path", "sub").get("entries")).isEqualTo(List.of("visible.txt"));
        assertThat(paths(f.call("file_find").get("files"))).containsExactly("sub/visible.txt");
        assertThat(paths(f.call("file_grep", "pattern", "needle").get("matches"))).containsExactly("sub/visible.txt");
        assertThat(f.call("file_count").get("files")).isEqualTo(1);
    }

    @Test
    void aJobOutputFileIsReadableByTheRelativePathExecRunReturns() throws Exception {
        plantLibraryFiles();
        assertThat(f.call("file_read", "path", ".worktarget/exec/j1.stdout").get("content"))
                .isEqualTo("needle from a job\nsecond line\n");
        assertThat(f.call("file_head_tail", "path", ".worktarget/exec/j1.stdout", "tail", 1).get("tail"))
                .isEqualTo("second line\n");
        assertThat(paths(f.call("file_grep", "pattern", "needle", "path", ".worktarget/exec/j1.stderr").get("matches")))
                .containsExactly(".worktarget/exec/j1.stderr");
        assertThat(f.call("file_count", "path", ".worktarget/exec/j1.stdout").get("lines")).isEqualTo(2);
    }

    @Test
    void jailbreakTheLibrarysOwnDirectoryCannotBeWrittenListedOrDeleted() throws Exception {
        plantLibraryFiles();
        assertThat(f.failure("file_write", "path", ".worktarget/exec/j1.stdout", "content", "x").code())
                .isEqualTo(ErrorCode.PATH_ESCAPE);
        assertThat(f.failure("file_edit", "path", ".worktarget/exec/j1.stdout", "oldText", "needle", "newText", "x")
                .code()).isEqualTo(ErrorCode.PATH_ESCAPE);
        assertThat(f.failure("file_delete", "path", ".worktarget/exec/j1.stdout").code()).isEqualTo(ErrorCode.PATH_ESCAPE);
        assertThat(f.failure("file_write", "path", ".worktarget/new.txt", "content", "x").code())
                .isEqualTo(ErrorCode.PATH_ESCAPE);
        assertThat(f.failure("file_list", "path", ".worktarget").code()).isEqualTo(ErrorCode.PATH_ESCAPE);
        assertThat(f.failure("file_find", "path", ".worktarget/exec").code()).isEqualTo(ErrorCode.PATH_ESCAPE);
        assertThat(f.failure("file_grep", "pattern", "x", "path", ".worktarget").code()).isEqualTo(ErrorCode.PATH_ESCAPE);
        assertThat(f.failure("file_delete", "path", ".worktarget").code()).isEqualTo(ErrorCode.PATH_ESCAPE);
        assertThat(f.read(".worktarget/exec/j1.stdout")).isEqualTo("needle from a job\nsecond line\n");
    }

    @Test
    void jailbreakAStagingFileCannotBeReadWrittenOrDeletedByName() throws Exception {
        plantLibraryFiles();
        for (String p : new String[] {STAGING, "sub/" + STAGING}) {
            assertThat(f.failure("file_read", "path", p).code()).isEqualTo(ErrorCode.PATH_ESCAPE);
            assertThat(f.failure("file_write", "path", p, "content", "x").code()).isEqualTo(ErrorCode.PATH_ESCAPE);
            assertThat(f.failure("file_delete", "path", p).code()).isEqualTo(ErrorCode.PATH_ESCAPE);
        }
        assertThat(f.read(STAGING)).isEqualTo("needle in a partial file\n");
    }

    @Test
    void writesLeaveNoStagingFileBehind() throws Exception {
        f.call("file_write", "path", "a/b/c.txt", "content", "x");
        f.call("file_write", "path", "a/b/c.txt", "content", "y");
        f.call("file_edit", "path", "a/b/c.txt", "oldText", "y", "newText", "z");
        try (Stream<Path> s = Files.walk(f.workDir())) {
            assertThat(s.map(p -> p.getFileName() == null ? "" : p.getFileName().toString())
                    .filter(n -> n.startsWith(".wt-") || n.endsWith(".part") || n.endsWith(".tmp"))).isEmpty();
        }
    }

    // ================================================================== jailbreaks through the tools

    @Test
    void jailbreakReadWithDotDotIsRefused() {
        assertThat(f.failure("file_read", "path", "../outside/secret.txt").code()).isEqualTo(ErrorCode.PATH_ESCAPE);
    }

    @Test
    void jailbreakReadOfAnAbsolutePathIsRefused() {
        ToolException e = f.failure("file_read", "path", outside.resolve("secret.txt").toString());
        assertThat(e.code()).isEqualTo(ErrorCode.PATH_ESCAPE);
    }

    @Test
    void jailbreakWriteOutsideCreatesNothing() throws IOException {
        for (String p : new String[] {"../outside/new.txt", "../../outside/new.txt", "a/../../outside/new.txt"}) {
            assertThat(f.failure("file_write", "path", p, "content", "x").code()).isEqualTo(ErrorCode.PATH_ESCAPE);
        }
        assertOutsideUntouched();
    }

    @Test
    void jailbreakSymlinkToAnOutsideFileCannotBeRead() throws IOException {
        Files.createSymbolicLink(f.path("link.txt"), outside.resolve("secret.txt"));
        ToolException e = f.failure("file_read", "path", "link.txt");
        assertThat(e.code()).isEqualTo(ErrorCode.PATH_ESCAPE);
        assertThat(e.getMessage()).doesNotContain("TOP SECRET").doesNotContain(outside.toString());
    }

    @Test
    void jailbreakSymlinkedDirectoryCannotBeWrittenThrough() throws IOException {
        Files.createSymbolicLink(f.path("out"), outside);
        assertThat(f.failure("file_write", "path", "out/new.txt", "content", "x").code())
                .isEqualTo(ErrorCode.PATH_ESCAPE);
        assertThat(f.failure("file_edit", "path", "out/secret.txt", "oldText", "TOP", "newText", "NO").code())
                .isEqualTo(ErrorCode.PATH_ESCAPE);
        assertOutsideUntouched();
    }

    @Test
    void jailbreakDeleteOfAnOutsideLinkRemovesOnlyTheLink() throws IOException, ToolException {
        Files.createSymbolicLink(f.path("link.txt"), outside.resolve("secret.txt"));
        assertThat(f.call("file_delete", "path", "link.txt").get("deleted")).isEqualTo(true);
        assertThat(Files.exists(f.path("link.txt"), LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertOutsideUntouched();
    }

    @Test
    void jailbreakWalksNeverFollowLinksOut() throws IOException, ToolException {
        Files.createSymbolicLink(f.path("out"), outside);
        Files.createSymbolicLink(f.path("s.txt"), outside.resolve("secret.txt"));
        f.write("in.txt", "nothing here\n");
        assertThat(list(f.call("file_grep", "pattern", "SECRET").get("matches"))).isEmpty();
        assertThat(paths(f.call("file_find").get("files"))).containsExactly("in.txt");
        assertThat(f.call("file_count").get("files")).isEqualTo(1);
    }

    @Test
    void jailbreakListThroughAnOutsideLinkIsRefused() throws IOException {
        Files.createSymbolicLink(f.path("out"), outside);
        assertThat(f.failure("file_list", "path", "out").code()).isEqualTo(ErrorCode.PATH_ESCAPE);
        assertThat(f.failure("file_grep", "pattern", "x", "path", "out").code()).isEqualTo(ErrorCode.PATH_ESCAPE);
    }

    @Test
    void jailbreakMessagesReadTheSameWhetherOrNotTheOutsideFileExists() {
        String exists = f.failure("file_read", "path", "../outside/secret.txt").getMessage();
        String missing = f.failure("file_read", "path", "../outside/absent.txt").getMessage();
        assertThat(exists.replace("secret", "X")).isEqualTo(missing.replace("absent", "X"));
    }

    @Test
    void jailbreakResultsNeverContainHostPaths() throws Exception {
        f.write("src/a.txt", "hit\n");
        String host = f.workDir().toString();
        assertThat(f.call("file_grep", "pattern", "hit").toString()).doesNotContain(host);
        assertThat(f.call("file_find").toString()).doesNotContain(host);
        assertThat(f.call("file_write", "path", "b.txt", "content", "x").toString()).doesNotContain(host);
    }

    @Test
    void jailbreakFifoIsRefusedWithoutHanging() throws Exception {
        assumeTrue(realDisk() && !System.getProperty("os.name", "").startsWith("Windows"));
        Process p = new ProcessBuilder("mkfifo", f.path("pipe").toString()).start();
        assertThat(p.waitFor()).isZero();
        assertThat(f.failure("file_read", "path", "pipe").getMessage()).contains("special file");
        assertThat(f.failure("file_head_tail", "path", "pipe", "head", 1).getMessage()).contains("special file");
        assertThat(f.failure("file_write", "path", "pipe", "content", "x").getMessage()).contains("special file");
        // walks skip it instead of opening it
        assertThat(f.call("file_grep", "pattern", "x").get("matches")).isEqualTo(List.of());
        assertThat(f.call("file_list").get("entries")).isEqualTo(List.of("pipe"));
    }
}
