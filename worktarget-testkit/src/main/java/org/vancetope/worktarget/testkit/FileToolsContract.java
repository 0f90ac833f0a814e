package org.vancetope.worktarget.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
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
 * The behaviour of the thirteen file tools, written once and run by every backend on every file system
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

    /**
     * Whether the backend makes its work directory again when it was deleted while in use (a WORK RootDir
     * is recreated by its handler), instead of failing every call with {@code not_found}.
     *
     * @return false unless overridden
     */
    protected boolean recreatesAMissingWorkDirectory() {
        return false;
    }

    @BeforeEach
    void setUpContract() throws Exception {
        Path top;
        switch (flavour()) {
            case JIMFS_UNIX -> {
                jimfs = newJimfs(true);
                top = Files.createDirectories(jimfs.getPath("/contract"));
            }
            case JIMFS_WINDOWS -> {
                jimfs = newJimfs(false);
                top = Files.createDirectories(jimfs.getPath("C:\\contract"));
            }
            default -> top = tempDir;
        }
        outside = Files.createDirectories(top.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), "TOP SECRET\n");
        f = createFixture(Files.createDirectories(top.resolve("base")));
    }

    /** Jimfs is an optional dependency of the testkit: a missing one fails the Jimfs flavours with what to do. */
    private static FileSystem newJimfs(boolean unix) {
        try {
            return unix
                    ? Jimfs.newFileSystem(Configuration.unix().toBuilder()
                            .setAttributeViews("basic", "owner", "posix", "unix").build())
                    : Jimfs.newFileSystem(Configuration.windows());
        } catch (NoClassDefFoundError e) {
            throw new IllegalStateException("The JIMFS_UNIX and JIMFS_WINDOWS flavours of FileToolsContract need "
                    + "com.google.jimfs:jimfs on the test class path (an optional dependency of worktarget-testkit): "
                    + "add it in test scope, or run the contract on Flavour.REAL_DISK", e);
        }
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
    void writeBelowAFileNamesTheFileInTheWayInsteadOfCallingTheTargetMissing() throws Exception {
        f.write("a.txt", "a");
        for (String path : new String[] {"a.txt/x.txt", "a.txt/sub/deeper/x.txt"}) {
            ToolException e = f.failure("file_write", "path", path, "content", "x");
            assertThat(e.code()).as(path).isEqualTo(ErrorCode.INVALID_PARAMS);
            assertThat(e.getMessage()).as(path).isEqualTo("Cannot write '" + path + "': 'a.txt' is a file, not a "
                    + "directory.");
        }
        assertThat(f.read("a.txt")).isEqualTo("a");
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
    void aMissingPathIsRefusedNamingWhereItStopsAndTheNearNameThere() throws Exception {
        f.write("src/main/App.java", "class App {}");
        ToolException typo = f.failure("file_read", "path", "src/main/Ap.java");
        assertThat(typo.code()).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(typo.getMessage()).endsWith("Did you mean 'src/main/App.java'?");
        ToolException dir = f.failure("file_list", "path", "src/mian/sub");
        assertThat(dir.code()).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(dir.getMessage()).endsWith("There is no 'src/mian' (its parent 'src' exists); did you mean 'src/main'?");
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

    @Test
    void editAmbiguousNamesEachLineOnceAndAtMostTen() throws Exception {
        f.write("one.txt", "x x x\n");
        assertThat(f.failure("file_edit", "path", "one.txt", "oldText", "x", "newText", "y").getMessage())
                .contains("3 times", "(all on line 1)");
        f.write("many.txt", "x\nx x\n\nx\n".repeat(6));
        assertThat(f.failure("file_edit", "path", "many.txt", "oldText", "x", "newText", "y").getMessage())
                .contains("24 times", "(at lines 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, ...)");
        f.write("two.txt", "x\ny\nx\n");
        assertThat(f.failure("file_edit", "path", "two.txt", "oldText", "x", "newText", "y").getMessage())
                .contains("2 times", "(at lines 1, 3)").doesNotContain("...");
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

    // ===== grep modes, gitignore, excludes

    @Test
    void grepLiteralMatchesRegexMetacharactersAsText() throws Exception {
        f.write("a.txt", "callx\ncall(x) + [y]*\n");
        List<Map<String, Object>> m = list(f.call("file_grep", "pattern", "call(x) + [y]*", "literal", true)
                .get("matches"));
        assertThat(m).containsExactly(Map.of("path", "a.txt", "line", 2, "text", "call(x) + [y]*"));
    }

    @Test
    void grepLiteralThatIsNotAValidRegexIsSearchedAsText() throws Exception {
        f.write("a.txt", "x (unclosed\n");
        assertThat(list(f.call("file_grep", "pattern", "(unclosed", "literal", true).get("matches"))).hasSize(1);
    }

    @Test
    void grepLiteralCanIgnoreCase() throws Exception {
        f.write("a.txt", "FOO.BAR\nfooXbar\n");
        List<Map<String, Object>> m = list(f.call("file_grep", "pattern", "foo.bar", "literal", true,
                "caseInsensitive", true).get("matches"));
        assertThat(m).extracting(x -> x.get("line")).containsExactly(1);
    }

    @Test
    void grepLiteralWithALineBreakNeedsMultiline() {
        ToolException e = f.failure("file_grep", "pattern", "a\nb", "literal", true);
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).contains("multiline");
    }

    @Test
    void grepLiteralWithALineBreakMatchesAcrossLinesInMultilineMode() throws Exception {
        f.write("a.txt", "x\na.b\n(c)\n");
        List<Map<String, Object>> m = list(f.call("file_grep", "pattern", "a.b\n(c)", "literal", true,
                "multiline", true).get("matches"));
        assertThat(m).containsExactly(Map.of("path", "a.txt", "line", 2, "endLine", 3, "text", "a.b\n(c)"));
    }

    @Test
    void grepOfABadPatternSuggestsLiteral() {
        assertThat(f.failure("file_grep", "pattern", "f(x").getMessage()).contains("literal");
    }

    @Test
    void grepCountOnlyGivesPerFileCountsAndATotalWithoutLines() throws Exception {
        f.write("a.txt", "hit\nno\nhit hit\n");
        f.write("b/c.txt", "hit\n");
        f.write("d.txt", "none\n");
        Map<String, Object> r = f.call("file_grep", "pattern", "hit", "countOnly", true);
        assertThat(r.get("files")).isEqualTo(List.of(Map.of("path", "a.txt", "count", 2),
                Map.of("path", "b/c.txt", "count", 1)));
        assertThat(r.get("totalMatches")).isEqualTo(3);
        assertThat(r.get("filesMatched")).isEqualTo(2);
        assertThat(r.get("filesSearched")).isEqualTo(3);
        assertThat(r.get("truncated")).isEqualTo(false);
        assertThat(r).doesNotContainKey("matches");
    }

    @Test
    void grepCountOnlyLimitListsFewerFilesButCountsThemAll() throws Exception {
        f.write("a.txt", "hit\n");
        f.write("b.txt", "hit\nhit\n");
        Map<String, Object> r = f.call("file_grep", "pattern", "hit", "countOnly", true, "limit", 1);
        assertThat(paths(r.get("files"))).containsExactly("a.txt");
        assertThat(r.get("totalMatches")).isEqualTo(3);
        assertThat(r.get("truncated")).isEqualTo(true);
        assertThat((String) r.get("hint")).contains("limit");
    }

    @Test
    void grepCountOnlyOfOneFile() throws Exception {
        f.write("sub/a.txt", "hit\nhit\n");
        Map<String, Object> r = f.call("file_grep", "pattern", "hit", "path", "sub/a.txt", "countOnly", true);
        assertThat(r.get("files")).isEqualTo(List.of(Map.of("path", "sub/a.txt", "count", 2)));
    }

    @Test
    void grepCountOnlyWithContextLinesIsInvalid() {
        ToolException e = f.failure("file_grep", "pattern", "x", "countOnly", true, "contextAfter", 2);
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).contains("countOnly");
    }

    @Test
    void grepMultilineMatchGivesItsStartLineEndLineAndLines() throws Exception {
        f.write("a.txt", "a\nbegin\nmiddle\nend\nz\n");
        List<Map<String, Object>> m = list(f.call("file_grep", "pattern", "gin\\nmiddle\\ne", "multiline", true)
                .get("matches"));
        assertThat(m).containsExactly(Map.of("path", "a.txt", "line", 2, "endLine", 4,
                "text", "begin\nmiddle\nend"));
    }

    @Test
    void grepWithoutMultilineDoesNotMatchAcrossLines() throws Exception {
        f.write("a.txt", "begin\nend\n");
        assertThat(list(f.call("file_grep", "pattern", "begin\\nend").get("matches"))).isEmpty();
    }

    @Test
    void grepMultilineDotMatchesLineBreaksOnlyWithTheInlineFlag() throws Exception {
        f.write("a.txt", "begin\nx\nend\n");
        assertThat(list(f.call("file_grep", "pattern", "begin.*end", "multiline", true).get("matches"))).isEmpty();
        assertThat(list(f.call("file_grep", "pattern", "(?s)begin.*?end", "multiline", true).get("matches")))
                .extracting(x -> x.get("endLine")).containsExactly(3);
    }

    @Test
    void grepMultilineReportsEveryMatchInOrder() throws Exception {
        f.write("a.txt", "<a>\n1\n</a>\n<a>\n2\n</a>\n");
        List<Map<String, Object>> m = list(f.call("file_grep", "pattern", "<a>\\n\\d\\n</a>", "multiline", true)
                .get("matches"));
        assertThat(m).extracting(x -> x.get("line")).containsExactly(1, 4);
    }

    @Test
    void grepMultilineMatchMayNotSpanMoreLinesThanTheWindow() throws Exception {
        f.write("long.txt", "begin\n" + "x\n".repeat(250) + "end\n");
        f.write("short.txt", "begin\n" + "x\n".repeat(150) + "end\n");
        List<Map<String, Object>> m = list(f.call("file_grep", "pattern", "(?s)begin.*end", "multiline", true)
                .get("matches"));
        assertThat(m).extracting(x -> x.get("path")).containsExactly("short.txt");
        assertThat(m.get(0).get("endLine")).isEqualTo(152);
    }

    @Test
    void grepMultilineCountOnlyCountsMatches() throws Exception {
        f.write("a.txt", "k\nv\nk\nv\n");
        Map<String, Object> r = f.call("file_grep", "pattern", "k\\nv", "multiline", true, "countOnly", true);
        assertThat(r.get("totalMatches")).isEqualTo(2);
    }

    @Test
    void grepSkipsFilesAndDirectoriesIgnoredByGitignore() throws Exception {
        f.write(".gitignore", "*.log\nout/\n");
        f.write("a.log", "hit\n");
        f.write("out/x.txt", "hit\n");
        f.write("keep.txt", "hit\n");
        Map<String, Object> r = f.call("file_grep", "pattern", "hit");
        assertThat(paths(r.get("matches"))).containsExactly("keep.txt");
        assertThat(r.get("skippedIgnored")).isEqualTo(2);
    }

    @Test
    void anEmptySearchSaysWhatItSkippedAndWhichParameterIncludesIt() throws Exception {
        f.write(".gitignore", "out/\n");
        f.write("out/x.txt", "needle\n");
        f.write("node_modules/m/x.txt", "needle\n");
        f.write("keep.md", "other\n");
        String both = "but this was skipped: 1 generated directory (pass includeGenerated: true to look there too) "
                + "and 1 file or directory ignored by .gitignore (pass includeIgnored: true).";
        assertThat((String) f.call("file_grep", "pattern", "needle").get("hint")).isEqualTo("No match found, " + both);
        assertThat((String) f.call("file_grep", "pattern", "needle", "countOnly", true).get("hint"))
                .isEqualTo("No match found, " + both);
        assertThat((String) f.call("file_find", "pathGlob", "**/x.txt").get("hint")).isEqualTo("No file found, " + both);

        assertThat((String) f.call("file_find", "pathGlob", "**/x.txt", "includeIgnored", true).get("hint"))
                .as("found: nothing to say").isNull();
        assertThat(f.call("file_grep", "pattern", "other")).as("found: nothing to say").doesNotContainKey("hint");
        assertThat(f.call("file_grep", "pattern", "absent", "path", "keep.md")).as("nothing skipped")
                .doesNotContainKey("hint");
    }

    @Test
    void anEmptySearchSaysHowManyDirectoriesWereDeeperThanMaxDepth() throws Exception {
        f.write("a/b/c/deep.txt", "needle\n");
        f.write("a/b/d/other.txt", "other\n");
        f.write("a/b/node_modules/m.txt", "needle\n");     // pruned anyway: not counted as too deep
        f.write("a/b/out/x.txt", "needle\n");              // ignored anyway: not counted as too deep
        f.write(".gitignore", "out/\n");
        String deep = "but this was skipped: 2 directories deeper than maxDepth 2, not entered (pass a larger "
                + "maxDepth (at most 64) to look there).";
        assertThat((String) f.call("file_grep", "pattern", "needle", "maxDepth", 2).get("hint"))
                .isEqualTo("No match found, " + deep);
        assertThat((String) f.call("file_find", "pathGlob", "**/deep.txt", "maxDepth", 2).get("hint"))
                .isEqualTo("No file found, " + deep);
        // file_count reads no .gitignore: out/ is one more directory it would have entered
        assertThat((String) f.call("file_count", "maxDepth", 2).get("hint")).isEqualTo("3 directories deeper than "
                + "maxDepth 2 were not entered, so the files in them are not counted: pass a larger maxDepth (at most "
                + "64) to look there.");
        assertThat((String) f.call("file_count", "path", "a/b/c", "maxDepth", 0, "pattern", "x").get("hint"))
                .as("nothing below").isNull();

        Map<String, Object> found = f.call("file_grep", "pattern", "needle", "maxDepth", 3);
        assertThat(paths(found.get("matches"))).containsExactly("a/b/c/deep.txt");
        assertThat(found).doesNotContainKey("hint");
        assertThat(f.call("file_count", "maxDepth", 3)).as("nothing deeper").doesNotContainKey("hint");
    }

    @Test
    void grepIncludeIgnoredSearchesIgnoredFiles() throws Exception {
        f.write(".gitignore", "*.log\n");
        f.write("a.log", "hit\n");
        Map<String, Object> r = f.call("file_grep", "pattern", "hit", "includeIgnored", true);
        assertThat(paths(r.get("matches"))).containsExactly("a.log");
        assertThat(r.get("skippedIgnored")).isEqualTo(0);
    }

    @Test
    void findSkipsIgnoredFilesUnlessIncludeIgnored() throws Exception {
        f.write(".gitignore", "*.tmp\n");
        f.write("a.tmp", "x");
        f.write("b.txt", "x");
        assertThat(paths(f.call("file_find", "pathGlob", "*.t*").get("files"))).containsExactly("b.txt");
        assertThat(paths(f.call("file_find", "pathGlob", "*.t*", "includeIgnored", true).get("files")))
                .containsExactly("a.tmp", "b.txt");
    }

    @Test
    void gitignoreNegationReincludesAFile() throws Exception {
        f.write(".gitignore", "*.log\n!keep.log\n");
        f.write("drop.log", "x");
        f.write("keep.log", "x");
        assertThat(paths(f.call("file_find", "pathGlob", "*.log").get("files"))).containsExactly("keep.log");
    }

    @Test
    void gitignoreLaterRuleWins() throws Exception {
        f.write(".gitignore", "!keep.log\n*.log\n");
        f.write("keep.log", "x");
        assertThat(paths(f.call("file_find", "pathGlob", "*.log").get("files"))).isEmpty();
    }

    @Test
    void gitignoreCannotReincludeAFileOfAnIgnoredDirectory() throws Exception {
        f.write(".gitignore", "out/\n!out/keep.txt\n");
        f.write("out/keep.txt", "x");
        assertThat(paths(f.call("file_find").get("files"))).containsExactly(".gitignore");
    }

    @Test
    void gitignoreTrailingSlashMatchesDirectoriesOnly() throws Exception {
        f.write(".gitignore", "out/\n");
        f.write("a/out", "a file named out");
        f.write("b/out/x.txt", "x");
        assertThat(paths(f.call("file_find", "pathGlob", "*/**").get("files"))).containsExactly("a/out");
    }

    @Test
    void gitignoreLeadingSlashAnchorsToItsDirectory() throws Exception {
        f.write(".gitignore", "/top.txt\n");
        f.write("top.txt", "x");
        f.write("sub/top.txt", "x");
        assertThat(paths(f.call("file_find", "pathGlob", "**/top.txt").get("files"))).containsExactly("sub/top.txt");
    }

    @Test
    void gitignoreMiddleSlashAnchorsToo() throws Exception {
        f.write(".gitignore", "docs/*.md\n");
        f.write("docs/a.md", "x");
        f.write("docs/deep/b.md", "x");
        f.write("x/docs/c.md", "x");
        assertThat(paths(f.call("file_find", "pathGlob", "**/*.md").get("files")))
                .containsExactly("docs/deep/b.md", "x/docs/c.md");
    }

    @Test
    void gitignoreDoubleStarMatchesAnyNumberOfDirectories() throws Exception {
        f.write(".gitignore", "a/**/z.txt\n**/gen/\nlogs/**\n");
        f.write("a/z.txt", "x");
        f.write("a/b/c/z.txt", "x");
        f.write("q/gen/g.txt", "x");
        f.write("logs/x/y.txt", "x");
        f.write("a/b/keep.txt", "x");
        assertThat(paths(f.call("file_find", "pathGlob", "*/**").get("files"))).containsExactly("a/b/keep.txt");
    }

    @Test
    void gitignoreCommentsBlankLinesEscapesAndTrailingSpaces() throws Exception {
        f.write(".gitignore", "# comment.txt\n\n\\#hash.txt\nspace.txt   \n\\!bang.txt\n");
        f.write("comment.txt", "x");
        f.write("#hash.txt", "x");
        f.write("space.txt", "x");
        f.write("!bang.txt", "x");
        assertThat(paths(f.call("file_find", "pathGlob", "*.txt").get("files"))).containsExactly("comment.txt");
    }

    @Test
    void nestedGitignoreAppliesToItsSubtreeOnly() throws Exception {
        f.write("sub/.gitignore", "*.txt\n");
        f.write("sub/a.txt", "x");
        f.write("sub/deeper/b.txt", "x");
        f.write("c.txt", "x");
        assertThat(paths(f.call("file_find", "pathGlob", "*.txt").get("files"))).containsExactly("c.txt");
    }

    @Test
    void nestedGitignoreOverridesItsParent() throws Exception {
        f.write(".gitignore", "*.txt\n");
        f.write("sub/.gitignore", "!keep.txt\n");
        f.write("sub/keep.txt", "x");
        f.write("sub/drop.txt", "x");
        assertThat(paths(f.call("file_find", "pathGlob", "*.txt").get("files"))).containsExactly("sub/keep.txt");
    }

    @Test
    void nestedAnchoredRuleIsRelativeToItsOwnDirectory() throws Exception {
        f.write("sub/.gitignore", "/x.txt\n");
        f.write("sub/x.txt", "x");
        f.write("sub/deep/x.txt", "x");
        f.write("x.txt", "x");
        assertThat(paths(f.call("file_find", "pathGlob", "**/x.txt").get("files")))
                .containsExactly("sub/deep/x.txt", "x.txt");
    }

    @Test
    void gitignoreOfAnAncestorAppliesWhenSearchingASubdirectory() throws Exception {
        f.write(".gitignore", "*.log\nsub/gen/\n");
        f.write("sub/a.log", "hit\n");
        f.write("sub/gen/b.txt", "hit\n");
        f.write("sub/c.txt", "hit\n");
        assertThat(paths(f.call("file_grep", "pattern", "hit", "path", "sub").get("matches")))
                .containsExactly("sub/c.txt");
    }

    @Test
    void aNestedRepositoryIsNotIgnoredByTheRulesAboveIt() throws Exception {
        f.write(".gitignore", "*.log\n");
        f.mkdir("nr/.git");
        f.write("nr/a.log", "hit\n");
        f.write("nr/b.txt", "hit\n");
        f.write("sm/.git", "gitdir: ../.git/modules/sm\n");
        f.write("sm/c.log", "hit\n");
        f.write("d.log", "hit\n");
        assertThat(paths(f.call("file_find", "pathGlob", "*.log").get("files"))).containsExactly("nr/a.log", "sm/c.log");
        assertThat(paths(f.call("file_grep", "pattern", "hit", "path", "nr").get("matches")))
                .containsExactly("nr/a.log", "nr/b.txt");
    }

    @Test
    void gitignoreCharacterClassesByNameWorkAsInGit() throws Exception {
        f.write(".gitignore", "[[:digit:]]*.num\n[![:upper:]]*.cap\n");
        f.write("1.num", "x");
        f.write("a.num", "x");
        f.write("Big.cap", "x");
        f.write("small.cap", "x");
        assertThat(paths(f.call("file_find", "pathGlob", "*.{num,cap}").get("files")))
                .containsExactlyInAnyOrder("a.num", "Big.cap");
    }

    @Test
    void gitInfoExcludeIsRead() throws Exception {
        f.write(".git/info/exclude", "secret.txt\n");
        f.write("secret.txt", "x");
        f.write("open.txt", "x");
        assertThat(paths(f.call("file_find", "pathGlob", "*.txt").get("files"))).containsExactly("open.txt");
    }

    @Test
    void gitignoreRulesThatPointOutsideTheRootMatchNothing() throws Exception {
        f.write(".gitignore", "../outside/secret.txt\n/../**\n../**\n");
        f.write("a.txt", "x");
        assertThat(paths(f.call("file_find", "pathGlob", "*.txt").get("files"))).containsExactly("a.txt");
        assertOutsideUntouched();
    }

    @Test
    void gitignoreThatIsALinkToAFileOutsideTheRootIsNotRead() throws Exception {
        Files.writeString(outside.resolve("rules"), "*.txt\n");
        Files.createSymbolicLink(f.path(".gitignore"), outside.resolve("rules"));
        f.write("a.txt", "hit\n");
        assertThat(paths(f.call("file_find", "pathGlob", "*.txt").get("files"))).containsExactly("a.txt");
        assertThat(paths(f.call("file_grep", "pattern", "hit").get("matches"))).containsExactly("a.txt");
    }

    @Test
    void findExcludeSkipsMatchingFilesAndDirectories() throws Exception {
        f.write("a.js", "x");
        f.write("a.min.js", "x");
        f.write("fixtures/b.js", "x");
        f.write("src/fixtures/c.js", "x");
        f.write("src/d.js", "x");
        assertThat(paths(f.call("file_find", "exclude", List.of("*.min.js", "fixtures")).get("files")))
                .containsExactly("a.js", "src/d.js");
    }

    @Test
    void grepExcludeWithAPathGlob() throws Exception {
        f.write("docs/old/a.md", "hit\n");
        f.write("docs/b.md", "hit\n");
        assertThat(paths(f.call("file_grep", "pattern", "hit", "exclude", List.of("docs/old/**")).get("matches")))
                .containsExactly("docs/b.md");
    }

    @Test
    void listExcludeLeavesOutMatchingEntries() throws Exception {
        f.write("a.log", "x");
        f.write("b.txt", "x");
        f.mkdir("node_modules");
        assertThat(f.call("file_list", "exclude", List.of("*.log", "node_modules")).get("entries"))
                .isEqualTo(List.of("b.txt"));
    }

    @Test
    void excludeWithATrailingSlashSkipsTheDirectoryAsGitignoreDoes() throws Exception {
        f.write("sub/a.txt", "x");
        f.write("b/sub/c.txt", "x");
        f.write("d.txt", "x");
        f.mkdir("node_modules");
        assertThat(paths(f.call("file_find", "exclude", List.of("sub/")).get("files"))).containsExactly("d.txt");
        assertThat(f.call("file_list", "exclude", List.of("node_modules/", "sub/")).get("entries"))
                .isEqualTo(List.of("b/", "d.txt"));
    }

    @Test
    void excludeWithALeadingSlashIsAnchoredAtTheSearchedDirectory() throws Exception {
        f.write("docs/a.txt", "hit\n");
        f.write("src/docs/b.txt", "hit\n");
        f.write("src/c.txt", "hit\n");
        assertThat(paths(f.call("file_find", "exclude", List.of("/docs")).get("files")))
                .containsExactlyInAnyOrder("src/docs/b.txt", "src/c.txt");
        assertThat(paths(f.call("file_grep", "pattern", "hit", "path", "src", "exclude", List.of("/docs/"))
                .get("matches"))).containsExactly("src/c.txt");
    }

    @Test
    void excludeOfOnlySlashesIsInvalidParams() {
        assertThat(f.failure("file_find", "exclude", List.of("/")).code()).isEqualTo(ErrorCode.INVALID_PARAMS);
    }

    @Test
    void excludeOfEveryNameIsInvalidParams() {
        for (String g : List.of("*", "/*", "*/")) {
            assertThat(f.failure("file_grep", "pattern", "x", "exclude", List.of(g)).code()).as(g)
                    .isEqualTo(ErrorCode.INVALID_PARAMS);
        }
    }

    @Test
    void excludeWithAnInvalidGlobIsInvalidParamsNamingExclude() {
        ToolException e = f.failure("file_find", "exclude", List.of("[abc"));
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).contains("exclude").contains("[abc");
    }

    @Test
    void excludeThatIsNotAnArrayIsInvalidParams() {
        ToolException e = f.failure("file_grep", "pattern", "x", "exclude", "*.js");
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).contains("array");
    }

    @Test
    void excludeOfEverythingIsInvalidParams() {
        assertThat(f.failure("file_list", "exclude", List.of("**")).code()).isEqualTo(ErrorCode.INVALID_PARAMS);
    }

    @Test
    void excludeWithANonStringItemIsInvalidParams() {
        assertThat(f.failure("file_find", "exclude", List.of(3)).code()).isEqualTo(ErrorCode.INVALID_PARAMS);
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
    void deleteOfTheWorkDirectoryItselfIsRefusedAsSuchNotAsAnEscape() throws Exception {
        f.write("a/x.txt", "x");
        for (String root : new String[] {".", "a/..", "./"}) {
            ToolException e = f.failure("file_delete", "path", root);
            assertThat(e.code()).as(root).isEqualTo(ErrorCode.INVALID_PARAMS);
            assertThat(e.getMessage()).as(root).isEqualTo("Path '" + root + "' is the work directory itself; "
                    + "file_delete cannot delete it. Pass a path of a file or directory inside it.");
        }
        assertThat(f.read("a/x.txt")).isEqualTo("x");
    }

    @Test
    void textWithHalfACharacterIsRefusedAndNothingIsWritten() throws Exception {
        // a JSON escape of one half of a surrogate pair: written as UTF-8 it would silently become '?'
        ToolException write = f.failure("file_write", "path", "s.txt", "content", "a\uD800b");
        assertThat(write.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(write.getMessage()).startsWith("Parameter 'content' of file_write holds an unpaired UTF-16 surrogate");
        assertThat(exists("s.txt")).isFalse();
        f.write("e.txt", "x\n");
        assertThat(f.failure("file_edit", "path", "e.txt", "oldText", "x", "newText", "\uDC00y").code())
                .isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(f.read("e.txt")).isEqualTo("x\n");
        assertThat(f.call("file_write", "path", "s.txt", "content", "\uD83D\uDE00").get("bytes")).isEqualTo(4);
    }

    @Test
    void aReadOfTextThatIsNotUtf8SaysWhatWritingItBackWouldDo() throws Exception {
        f.write("latin.txt", "caf\u00e9\nok\n".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        Map<String, Object> r = f.call("file_read", "path", "latin.txt");
        assertThat(r.get("content")).isEqualTo("caf\uFFFD\nok\n");
        assertThat((String) r.get("hint")).startsWith("The file is not UTF-8 text here").contains("U+FFFD",
                "file_write would replace them", "iconv");
        Map<String, Object> ht = f.call("file_head_tail", "path", "latin.txt", "head", 1);
        assertThat((String) ht.get("hint")).startsWith("The file is not UTF-8 text here");
        List<Map<String, Object>> files = list(f.call("file_read", "paths", List.of("latin.txt")).get("files"));
        assertThat((String) files.get(0).get("hint")).startsWith("The file is not UTF-8 text here");
        // a page without the bad bytes says nothing
        assertThat(f.call("file_read", "path", "latin.txt", "startLine", 2)).doesNotContainKey("hint");
    }

    @Test
    void aReadOfUtf8TextThatHoldsTheReplacementCharacterItselfHasNoHint() throws Exception {
        f.write("real.txt", "a \uFFFD b\n");
        assertThat(f.call("file_read", "path", "real.txt")).doesNotContainKey("hint");
        assertThat(f.call("file_head_tail", "path", "real.txt", "head", 1)).doesNotContainKey("hint");
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
    void aWorkDirectoryDeletedWhileInUseIsNotFoundForEveryToolNotAnEscape() throws Exception {
        assumeTrue(!recreatesAMissingWorkDirectory(), "this backend makes its work directory again");
        f.write("a.txt", "a\n");
        Path root = f.path("a.txt").getParent();
        Files.delete(root.resolve("a.txt"));
        Files.delete(root);
        List<Object[]> calls = List.of(new Object[] {"file_list"}, new Object[] {"file_read", "path", "a.txt"},
                new Object[] {"file_write", "path", "b.txt", "content", "b"}, new Object[] {"file_find"},
                new Object[] {"file_grep", "pattern", "a"}, new Object[] {"file_stat", "path", "a.txt"},
                new Object[] {"file_mkdir", "path", "d"}, new Object[] {"file_tree"});
        for (Object[] c : calls) {
            ToolException e = f.failure((String) c[0], java.util.Arrays.copyOfRange(c, 1, c.length));
            assertThat(e.code()).as("%s", c[0]).isEqualTo(ErrorCode.NOT_FOUND);
            assertThat(e.getMessage()).as("%s", c[0]).contains("work directory itself does not exist");
        }
        assertThat(Files.exists(root)).as("nothing created it again").isFalse();
        Files.createDirectory(root);
        assertThat(f.call("file_write", "path", "b.txt", "content", "b")).containsEntry("created", true);
    }

    @Test
    void aWorkDirectoryDeletedWhileInUseIsMadeAgainEmptyByABackendThatRecreatesIt() throws Exception {
        assumeTrue(recreatesAMissingWorkDirectory(), "this backend fails calls while its work directory is missing");
        f.write("a.txt", "a\n");
        Path root = f.path("a.txt").getParent();
        Files.delete(root.resolve("a.txt"));
        Files.delete(root);
        assertThat(f.call("file_list").get("entries")).isEqualTo(List.of());
        assertThat(f.failure("file_read", "path", "a.txt").code()).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(f.call("file_write", "path", "b.txt", "content", "b")).containsEntry("created", true);
    }

    @Test
    void jailbreakFifoIsRefusedWithoutHanging() throws Exception {
        assumeTrue(realDisk() && !System.getProperty("os.name", "").startsWith("Windows"));
        Process p = new ProcessBuilder("mkfifo", f.path("pipe").toString()).start();
        assertThat(p.waitFor()).isZero();
        assertThat(f.failure("file_read", "path", "pipe").getMessage()).contains("special file");
        assertThat(f.failure("file_head_tail", "path", "pipe", "head", 1).getMessage()).contains("special file");
        assertThat(f.failure("file_write", "path", "pipe", "content", "x").getMessage()).contains("special file");
        assertThat(f.failure("file_move", "from", "pipe", "to", "moved").getMessage()).contains("special file")
                .contains("exec_run (mv)");
        // walks skip it instead of opening it
        assertThat(f.call("file_grep", "pattern", "x").get("matches")).isEqualTo(List.of());
        assertThat(f.call("file_list").get("entries")).isEqualTo(List.of("pipe"));
    }

    @Test
    void aFifoOrASocketIsDeletedWithoutBeingOpened() throws Exception {
        assumeTrue(realDisk() && !System.getProperty("os.name", "").startsWith("Windows"));
        Process p = new ProcessBuilder("mkfifo", f.path("pipe").toString()).start();
        assertThat(p.waitFor()).isZero();
        Path socket = f.path("server.sock");
        try (ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            s.bind(UnixDomainSocketAddress.of(socket));
        }
        assertThat(Files.exists(socket, LinkOption.NOFOLLOW_LINKS)).as("a stale socket stays").isTrue();

        assertThat(f.call("file_delete", "path", "pipe")).containsEntry("deleted", true);
        assertThat(f.call("file_delete", "path", "server.sock")).containsEntry("deleted", true);

        assertThat(f.call("file_list").get("entries")).isEqualTo(List.of());
        assertThat(f.call("file_delete", "path", "pipe")).containsEntry("deleted", false);
    }

    @Test
    void namesThatAreNotUtf8AreListedAndNamingThemSaysHowToReachThem() throws Exception {
        // a name in another encoding (Latin-1 'é' is the byte 0xE9): the platform shows it with U+FFFD
        assumeTrue(realDisk() && "UTF-8".equalsIgnoreCase(System.getProperty("sun.jnu.encoding")));
        f.write("ok.txt", "ok\n");
        Process p = new ProcessBuilder("sh", "-c", "printf latin > \"$(printf 'x\\351y')\" && mkdir \"$(printf 'd\\351r')\"")
                .directory(f.path("ok.txt").getParent().toFile()).start();
        assertThat(p.waitFor()).isZero();

        assertThat(f.call("file_list").get("entries")).isEqualTo(List.of("d\uFFFDr/", "ok.txt", "x\uFFFDy"));
        assertThat(treePaths(f.call("file_tree"))).isEqualTo(List.of("d\uFFFDr/", "ok.txt", "x\uFFFDy"));
        assertThat(paths(f.call("file_find").get("files"))).containsExactlyInAnyOrder("ok.txt", "x\uFFFDy");
        ToolException read = f.failure("file_read", "path", "x\uFFFDy");
        assertThat(read.code()).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(read.getMessage()).contains("not UTF-8", "exec_run");
        ToolException list = f.failure("file_list", "path", "d\uFFFDr");
        assertThat(list.code()).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(list.getMessage()).contains("not UTF-8", "exec_run");
        assertThat(f.failure("file_move", "from", "x\uFFFDy", "to", "y.txt").getMessage()).contains("not UTF-8");
        // a name that is valid UTF-8 gets no such hint
        assertThat(f.failure("file_read", "path", "missing.txt").getMessage()).doesNotContain("UTF-8");
    }

    @Test
    void writingToANameWithTheReplacementCharacterIsRefusedAndMakesNoTwin() throws Exception {
        for (Object[] c : List.of(new Object[] {"file_write", "path", "x\uFFFDy", "content", "z"},
                new Object[] {"file_mkdir", "path", "d\uFFFDr"}, new Object[] {"file_move", "from", "a.txt", "to",
                "x\uFFFDy"})) {
            f.write("a.txt", "a\n");
            ToolException e = f.failure((String) c[0], java.util.Arrays.copyOfRange(c, 1, c.length));
            assertThat(e.code()).as("%s", c[0]).isEqualTo(ErrorCode.INVALID_PARAMS);
            assertThat(e.getMessage()).as("%s", c[0]).contains("U+FFFD", "Nothing was written", "exec_run");
        }
        assertThat(f.call("file_list").get("entries")).isEqualTo(List.of("a.txt"));
    }

    // ===== file_move, file_mkdir, file_stat, file_tree

    private boolean exists(String rel) {
        return Files.exists(f.path(rel), LinkOption.NOFOLLOW_LINKS);
    }

    private List<Object> treePaths(Map<String, Object> tree) {
        return paths(tree.get("entries"));
    }

    @Test
    void moveRenamesAFileAtomicallyAndSaysWhatItMoved() throws Exception {
        f.write("a.txt", "alpha\n");
        Map<String, Object> r = f.call("file_move", "from", "a.txt", "to", "b.txt");
        assertThat(r).containsEntry("from", "a.txt").containsEntry("to", "b.txt").containsEntry("type", "file")
                .containsEntry("overwritten", false).containsEntry("atomic", true).doesNotContainKey("hint");
        assertThat(exists("a.txt")).isFalse();
        assertThat(f.read("b.txt")).isEqualTo("alpha\n");
    }

    @Test
    void moveOfADirectoryTakesItsContentAlong() throws Exception {
        f.write("src/a/x.txt", "x");
        f.write("src/a/deep/y.txt", "y");
        Map<String, Object> r = f.call("file_move", "from", "src/a", "to", "lib");
        assertThat(r).containsEntry("type", "directory").containsEntry("to", "lib");
        assertThat(f.read("lib/x.txt")).isEqualTo("x");
        assertThat(f.read("lib/deep/y.txt")).isEqualTo("y");
        assertThat(exists("src/a")).isFalse();
    }

    @Test
    void moveOntoAnExistingFileIsRefusedWithoutOverwriteAndChangesNothing() throws Exception {
        f.write("a.txt", "a");
        f.write("b.txt", "b");
        ToolException e = f.failure("file_move", "from", "a.txt", "to", "b.txt");
        assertThat(e.code()).isEqualTo(ErrorCode.EXISTS);
        assertThat(e.getMessage()).contains("'b.txt'").contains("overwrite");
        assertThat(f.read("a.txt")).isEqualTo("a");
        assertThat(f.read("b.txt")).isEqualTo("b");
    }

    @Test
    void moveWithOverwriteReplacesAnExistingFile() throws Exception {
        f.write("a.txt", "a");
        f.write("d/b.txt", "b");
        Map<String, Object> r = f.call("file_move", "from", "a.txt", "to", "d/b.txt", "overwrite", true);
        assertThat(r).containsEntry("overwritten", true).containsEntry("atomic", true);
        assertThat(f.read("d/b.txt")).isEqualTo("a");
        assertThat(exists("a.txt")).isFalse();
        assertThat(f.call("file_list", "path", "d").get("entries")).isEqualTo(List.of("b.txt"));
    }

    @Test
    void moveNeverReplacesADirectoryEvenWithOverwrite() throws Exception {
        f.write("a.txt", "a");
        f.mkdir("empty");
        f.write("full/keep.txt", "k");
        f.mkdir("dir");
        for (Object[] c : new Object[][] {{"a.txt", "empty"}, {"a.txt", "full"}, {"dir", "empty"}, {"dir", "full"}}) {
            ToolException e = f.failure("file_move", "from", c[0], "to", c[1], "overwrite", true);
            assertThat(e.code()).as("%s -> %s", c[0], c[1]).isEqualTo(ErrorCode.EXISTS);
            assertThat(e.getMessage()).contains("never replaces a directory");
        }
        assertThat(f.read("a.txt")).isEqualTo("a");
        assertThat(f.read("full/keep.txt")).isEqualTo("k");
        assertThat(Files.isDirectory(f.path("dir"))).isTrue();
        assertThat(Files.isDirectory(f.path("empty"))).isTrue();
    }

    @Test
    void moveNeverReplacesAFileByADirectory() throws Exception {
        f.write("dir/x.txt", "x");
        f.write("b.txt", "b");
        ToolException e = f.failure("file_move", "from", "dir", "to", "b.txt", "overwrite", true);
        assertThat(e.code()).isEqualTo(ErrorCode.EXISTS);
        assertThat(f.read("b.txt")).isEqualTo("b");
        assertThat(f.read("dir/x.txt")).isEqualTo("x");
    }

    @Test
    void writeToAPathThatNamesADirectoryIsRefusedAndMakesNoFile() throws Exception {
        for (String path : new String[] {"newdir/", "newdir/.", "sub/newdir//"}) {
            ToolException e = f.failure("file_write", "path", path, "content", "x");
            assertThat(e.code()).as(path).isEqualTo(ErrorCode.INVALID_PARAMS);
            assertThat(e.getMessage()).as(path).contains("names a directory", "file_write writes a file",
                    "Nothing was written", "/notes.txt'");
        }
        assertThat(exists("newdir")).isFalse();
        assertThat(exists("sub")).isFalse();
    }

    @Test
    void moveOfAFileToAPathThatNamesADirectoryIsRefusedSayingWhatToPass() throws Exception {
        f.write("a.txt", "a");
        f.call("file_mkdir", "path", "d");
        ToolException into = f.failure("file_move", "from", "a.txt", "to", "d/");
        assertThat(into.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(into.getMessage()).contains("names a directory", "pass 'd/a.txt'", "to rename it, pass 'd'");
        ToolException absent = f.failure("file_move", "from", "a.txt", "to", "x/");
        assertThat(absent.getMessage()).contains("pass 'x/a.txt'");
        ToolException source = f.failure("file_move", "from", "a.txt/", "to", "b.txt");
        assertThat(source.getMessage()).contains("Parameter 'from' 'a.txt/' names a directory", "is a file",
                "Nothing was moved");
        assertThat(f.read("a.txt")).isEqualTo("a");
        assertThat(exists("x")).isFalse();
        assertThat(f.call("file_list", "path", "d").get("entries")).isEqualTo(List.of());
    }

    @Test
    void moveOfADirectoryToAPathWithATrailingSlashRenamesIt() throws Exception {
        f.write("d/x.txt", "x");
        Map<String, Object> r = f.call("file_move", "from", "d", "to", "e/");
        assertThat(r).containsEntry("to", "e").containsEntry("type", "directory");
        assertThat(f.read("e/x.txt")).isEqualTo("x");
    }

    @Test
    void deleteOrEditOfAFilePathThatNamesADirectoryIsRefusedAndChangesNothing() throws Exception {
        f.write("a.txt", "alpha");
        ToolException delete = f.failure("file_delete", "path", "a.txt/");
        assertThat(delete.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(delete.getMessage()).contains("names a directory (it ends with '/')", "Nothing was deleted");
        ToolException edit = f.failure("file_edit", "path", "a.txt/", "oldText", "alpha", "newText", "beta");
        assertThat(edit.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(edit.getMessage()).contains("names a directory", "Nothing was changed");
        assertThat(f.read("a.txt")).isEqualTo("alpha");
    }

    @Test
    void moveOfADirectoryOntoItselfSaysItIsTheSameEntryAndMovesNothing() throws Exception {
        f.write("a/x.txt", "x");
        for (String to : new String[] {"a", "./a", "a/.", "b/../a"}) {
            ToolException e = f.failure("file_move", "from", "a", "to", to);
            assertThat(e.code()).as(to).isEqualTo(ErrorCode.INVALID_PARAMS);
            assertThat(e.getMessage()).as(to).contains("are the same entry; nothing was moved")
                    .doesNotContain("into itself");
        }
        assertThat(f.call("file_list", "path", "a").get("entries")).isEqualTo(List.of("x.txt"));
    }

    @Test
    void moveOfADirectoryIntoItselfIsRefusedAndCreatesNothing() throws Exception {
        f.write("a/x.txt", "x");
        for (String to : new String[] {"a/b", "a/b/c", "a/./b/../c"}) {
            ToolException e = f.failure("file_move", "from", "a", "to", to, "createParents", true);
            assertThat(e.code()).as(to).isEqualTo(ErrorCode.INVALID_PARAMS);
            assertThat(e.getMessage()).contains("into itself");
        }
        assertThat(f.call("file_list", "path", "a").get("entries")).isEqualTo(List.of("x.txt"));
    }

    @Test
    void moveOfADirectoryIntoItselfThroughALinkIsRefused() throws Exception {
        f.write("a/x.txt", "x");
        Files.createSymbolicLink(f.path("la"), f.path("a"));
        assertThat(f.failure("file_move", "from", "a", "to", "la/b").code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(f.read("a/x.txt")).isEqualTo("x");
    }

    @Test
    void moveOfAMissingSourceIsNotFoundAndCreatesNothing() {
        ToolException e = f.failure("file_move", "from", "nope.txt", "to", "new/dir/x.txt", "createParents", true);
        assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(e.getMessage()).contains("'nope.txt'");
        assertThat(exists("new")).isFalse();
    }

    @Test
    void moveIntoAMissingDirectoryNeedsCreateParents() throws Exception {
        f.write("a.txt", "a");
        ToolException e = f.failure("file_move", "from", "a.txt", "to", "x/y/a.txt");
        assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(e.getMessage()).contains("createParents").contains("file_mkdir");
        assertThat(exists("x")).isFalse();
        assertThat(f.call("file_move", "from", "a.txt", "to", "x/y/a.txt", "createParents", true).get("to"))
                .isEqualTo("x/y/a.txt");
        assertThat(f.read("x/y/a.txt")).isEqualTo("a");
    }

    @Test
    void moveBelowAFileIsRefused() throws Exception {
        f.write("a.txt", "a");
        f.write("plain.txt", "p");
        ToolException e = f.failure("file_move", "from", "a.txt", "to", "plain.txt/a.txt", "createParents", true);
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).contains("'plain.txt' is a file");
        assertThat(f.read("a.txt")).isEqualTo("a");
        assertThat(f.read("plain.txt")).isEqualTo("p");
    }

    @Test
    void moveOfTheWorkDirectoryItselfIsRefused() throws Exception {
        f.write("a/x.txt", "x");
        for (String root : new String[] {".", "", "a/..", "./"}) {
            if (root.isEmpty()) {
                assertThat(f.failure("file_move", "from", root, "to", "b").code()).isIn(ErrorCode.INVALID_PARAMS,
                        ErrorCode.PATH_ESCAPE);
                continue;
            }
            ToolException from = f.failure("file_move", "from", root, "to", "b");
            assertThat(from.code()).as(root).isEqualTo(ErrorCode.INVALID_PARAMS);
            assertThat(from.getMessage()).contains("work directory itself");
            ToolException to = f.failure("file_move", "from", "a", "to", root, "overwrite", true);
            assertThat(to.code()).as(root).isEqualTo(ErrorCode.INVALID_PARAMS);
            assertThat(to.getMessage()).contains("work directory itself");
        }
        assertThat(f.read("a/x.txt")).isEqualTo("x");
        assertThat(exists("b")).isFalse();
    }

    @Test
    void moveOntoItselfIsRefused() throws Exception {
        f.write("a.txt", "a");
        ToolException e = f.failure("file_move", "from", "a.txt", "to", "./a.txt", "overwrite", true);
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).contains("same entry");
        assertThat(f.read("a.txt")).isEqualTo("a");
    }

    @Test
    void moveOfALinkMovesTheLinkItselfNeverItsTarget() throws Exception {
        Files.createSymbolicLink(f.path("link.txt"), outside.resolve("secret.txt"));
        Map<String, Object> r = f.call("file_move", "from", "link.txt", "to", "moved.txt");
        assertThat(r).containsEntry("type", "symlink");
        assertThat(Files.isSymbolicLink(f.path("moved.txt"))).isTrue();
        assertThat(exists("link.txt")).isFalse();
        assertThat(f.failure("file_read", "path", "moved.txt").code()).isEqualTo(ErrorCode.PATH_ESCAPE);
        assertOutsideUntouched();
    }

    @Test
    void moveNeverReplacesALink() throws Exception {
        f.write("a.txt", "a");
        Files.createSymbolicLink(f.path("link.txt"), outside.resolve("secret.txt"));
        assertThat(f.failure("file_move", "from", "a.txt", "to", "link.txt", "overwrite", true).code())
                .isEqualTo(ErrorCode.EXISTS);
        assertThat(Files.isSymbolicLink(f.path("link.txt"))).isTrue();
        assertOutsideUntouched();
    }

    @Test
    void moveOfALinkOntoTheFileItPointsToIsRefusedAndKeepsTheFile() throws Exception {
        f.write("b.txt", "b");
        Files.createSymbolicLink(f.path("link.txt"), f.path("b.txt"));
        ToolException e = f.failure("file_move", "from", "link.txt", "to", "b.txt", "overwrite", true);
        assertThat(e.code()).isEqualTo(ErrorCode.EXISTS);
        assertThat(f.read("b.txt")).isEqualTo("b");
        assertThat(Files.isSymbolicLink(f.path("link.txt"))).isTrue();
    }

    @Test
    void moveWithAMisspelledParameterIsRefusedBeforeAnythingMoves() throws Exception {
        f.write("a.txt", "a");
        f.write("b.txt", "b");
        assertThat(f.failure("file_move", "from", "a.txt", "to", "b.txt", "overwite", true).code())
                .isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(f.read("b.txt")).isEqualTo("b");
    }

    @Test
    void jailbreakMoveOutOfTheWorkDirectoryIsRefused() throws Exception {
        f.write("a.txt", "a");
        for (String to : new String[] {"../outside/a.txt", "../../outside/a.txt", "d/../../outside/a.txt",
                outside.resolve("a.txt").toString(), ".worktarget/a.txt"}) {
            assertThat(f.failure("file_move", "from", "a.txt", "to", to, "createParents", true).code()).as(to)
                    .isEqualTo(ErrorCode.PATH_ESCAPE);
        }
        assertThat(f.read("a.txt")).isEqualTo("a");
        assertOutsideUntouched();
    }

    @Test
    void jailbreakMoveIntoTheWorkDirectoryFromOutsideIsRefused() throws Exception {
        for (String from : new String[] {"../outside/secret.txt", outside.resolve("secret.txt").toString(),
                "../outside"}) {
            assertThat(f.failure("file_move", "from", from, "to", "got.txt").code()).as(from)
                    .isEqualTo(ErrorCode.PATH_ESCAPE);
        }
        assertThat(exists("got.txt")).isFalse();
        assertOutsideUntouched();
    }

    @Test
    void jailbreakMoveThroughALinkToOutsideIsRefused() throws Exception {
        f.write("a.txt", "a");
        Files.createSymbolicLink(f.path("out"), outside);
        assertThat(f.failure("file_move", "from", "a.txt", "to", "out/a.txt").code()).isEqualTo(ErrorCode.PATH_ESCAPE);
        assertThat(f.failure("file_move", "from", "out/secret.txt", "to", "got.txt").code())
                .isEqualTo(ErrorCode.PATH_ESCAPE);
        assertThat(f.failure("file_move", "from", "a.txt", "to", "out/new/a.txt", "createParents", true).code())
                .isEqualTo(ErrorCode.PATH_ESCAPE);
        assertThat(f.read("a.txt")).isEqualTo("a");
        assertThat(exists("got.txt")).isFalse();
        assertOutsideUntouched();
    }

    @Test
    void jailbreakTheLibrarysOwnFilesCannotBeMoved() throws Exception {
        plantLibraryFiles();
        for (String from : new String[] {".worktarget", ".worktarget/exec/j1.stdout", STAGING}) {
            assertThat(f.failure("file_move", "from", from, "to", "x").code()).as(from).isEqualTo(ErrorCode.PATH_ESCAPE);
        }
        assertThat(f.failure("file_move", "from", "sub/visible.txt", "to", STAGING).code())
                .isEqualTo(ErrorCode.PATH_ESCAPE);
        assertThat(exists(".worktarget/exec/j1.stdout")).isTrue();
        assertThat(exists("x")).isFalse();
    }

    @Test
    void mkdirCreatesTheDirectoryAndItsMissingParents() throws Exception {
        Map<String, Object> r = f.call("file_mkdir", "path", "a/b/c");
        assertThat(r).containsEntry("path", "a/b/c").containsEntry("created", true);
        assertThat(Files.isDirectory(f.path("a/b/c"))).isTrue();
    }

    @Test
    void mkdirOfAnExistingDirectoryIsOkWithCreatedFalse() throws Exception {
        f.write("a/x.txt", "x");
        assertThat(f.call("file_mkdir", "path", "a")).containsEntry("path", "a").containsEntry("created", false);
        assertThat(f.call("file_mkdir", "path", ".")).containsEntry("path", ".").containsEntry("created", false);
        assertThat(f.read("a/x.txt")).isEqualTo("x");
    }

    @Test
    void mkdirWhereAFileExistsIsAClearError() throws Exception {
        f.write("a.txt", "a");
        ToolException e = f.failure("file_mkdir", "path", "a.txt");
        assertThat(e.code()).isEqualTo(ErrorCode.EXISTS);
        assertThat(e.getMessage()).contains("'a.txt'").contains("a file of that name exists");
        assertThat(f.read("a.txt")).isEqualTo("a");
    }

    @Test
    void mkdirBelowAFileNamesTheFileInTheWay() throws Exception {
        f.write("a.txt", "a");
        ToolException e = f.failure("file_mkdir", "path", "a.txt/sub/deeper");
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).contains("'a.txt' is a file");
    }

    @Test
    void jailbreakMkdirOutsideCreatesNothing() throws Exception {
        Files.createSymbolicLink(f.path("out"), outside);
        for (String p : new String[] {"../outside/new", "a/../../outside/new", outside.resolve("new").toString(),
                "out/new", ".worktarget/new"}) {
            assertThat(f.failure("file_mkdir", "path", p).code()).as(p).isEqualTo(ErrorCode.PATH_ESCAPE);
        }
        assertOutsideUntouched();
        assertThat(exists("a")).isFalse();
    }

    @Test
    void statOfAFileReportsTypeSizeAndModificationTime() throws Exception {
        Path p = f.write("a.txt", "hello\nworld\n");
        Map<String, Object> r = f.call("file_stat", "path", "a.txt");
        assertThat(r).containsEntry("path", "a.txt").containsEntry("type", "file").containsEntry("size", 12)
                .containsKey("mode").doesNotContainKey("lines");
        assertThat(java.time.Instant.parse((String) r.get("modified")))
                .isEqualTo(Instant.ofEpochMilli(Files.getLastModifiedTime(p).toMillis()));
    }

    @Test
    void statAndFindGiveTheSameModificationTimeInMilliseconds() throws Exception {
        Path p = f.write("a.txt", "x");
        Files.setLastModifiedTime(p, java.nio.file.attribute.FileTime.from(Instant.parse("2026-01-02T03:04:05.123456789Z")));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> found = (List<Map<String, Object>>) f.call("file_find").get("files");
        assertThat(found).singleElement().satisfies(e -> assertThat(e).containsEntry("modified", "2026-01-02T03:04:05.123Z"));
        assertThat(f.call("file_stat", "path", "a.txt")).containsEntry("modified", "2026-01-02T03:04:05.123Z");
    }

    @Test
    void statCountsLinesOnlyWhenAsked() throws Exception {
        f.write("a.txt", "one\ntwo\nthree");
        assertThat(f.call("file_stat", "path", "a.txt", "countLines", true)).containsEntry("lines", 3)
                .doesNotContainKey("hint");
    }

    @Test
    void statOfADirectoryHasNoLinesAndSaysWhereToCountThem() throws Exception {
        f.write("d/x.txt", "x\n");
        Map<String, Object> r = f.call("file_stat", "path", "d", "countLines", true);
        assertThat(r).containsEntry("type", "directory").containsEntry("lines", null);
        assertThat((String) r.get("hint")).contains("file_count");
        assertThat(f.call("file_stat").get("type")).isEqualTo("directory");
        assertThat(f.call("file_stat", "path", ".").get("path")).isEqualTo(".");
    }

    @Test
    void statShowsThePosixModeAsOctalWhereTheFileSystemHasOne() throws Exception {
        Path p = f.write("run.sh", "echo hi\n");
        boolean posix = f.workDir().getFileSystem().supportedFileAttributeViews().contains("posix");
        if (posix) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-x---"));
        }
        Object mode = f.call("file_stat", "path", "run.sh").get("mode");
        assertThat(mode).isEqualTo(posix ? "0750" : null);
    }

    @Test
    void statOfALinkDescribesTheLinkItself() throws Exception {
        Files.createSymbolicLink(f.path("link.txt"), outside.resolve("secret.txt"));
        Map<String, Object> r = f.call("file_stat", "path", "link.txt", "countLines", true);
        assertThat(r).containsEntry("type", "symlink").containsEntry("lines", null);
        assertThat(r.toString()).doesNotContain("TOP SECRET").doesNotContain(outside.toString());
    }

    @Test
    void statOfAMissingPathIsNotFound() {
        ToolException e = f.failure("file_stat", "path", "nope/x.txt");
        assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(e.getMessage()).contains("'nope/x.txt'");
    }

    @Test
    void jailbreakStatOutsideIsRefused() throws Exception {
        Files.createSymbolicLink(f.path("out"), outside);
        for (String p : new String[] {"../outside/secret.txt", outside.resolve("secret.txt").toString(),
                "out/secret.txt", "..", ".worktarget"}) {
            assertThat(f.failure("file_stat", "path", p, "countLines", true).code()).as(p)
                    .isEqualTo(ErrorCode.PATH_ESCAPE);
        }
    }

    @Test
    void treeShowsEveryEntryInTreeOrderWithItsType() throws Exception {
        f.write("b.txt", "b");
        f.write("a/x.txt", "x");
        f.write("a-b/y.txt", "y");
        f.mkdir("a/empty");
        Map<String, Object> r = f.call("file_tree");
        assertThat(treePaths(r)).containsExactly("a/", "a/empty/", "a/x.txt", "a-b/", "a-b/y.txt", "b.txt");
        assertThat(list(r.get("entries")).get(0)).isEqualTo(Map.of("path", "a/", "type", "directory"));
        assertThat(list(r.get("entries")).get(2)).isEqualTo(Map.of("path", "a/x.txt", "type", "file"));
        assertThat(r).containsEntry("path", ".").containsEntry("count", 6).containsEntry("truncated", false)
                .containsEntry("maxDepth", 3).doesNotContainKey("hint");
    }

    @Test
    void treeOfASubdirectoryShowsRootRelativePaths() throws Exception {
        f.write("src/main/A.java", "a");
        assertThat(treePaths(f.call("file_tree", "path", "src"))).containsExactly("src/main/", "src/main/A.java");
    }

    @Test
    void treeStopsAtMaxDepth() throws Exception {
        f.write("a/b/c/d.txt", "d");
        assertThat(treePaths(f.call("file_tree", "maxDepth", 0))).containsExactly("a/");
        assertThat(treePaths(f.call("file_tree", "maxDepth", 1))).containsExactly("a/", "a/b/");
        assertThat(treePaths(f.call("file_tree", "maxDepth", 3))).containsExactly("a/", "a/b/", "a/b/c/", "a/b/c/d.txt");
    }

    @Test
    void treeRefusesAMaxDepthBeyondTheLimit() {
        assertThat(f.failure("file_tree", "maxDepth", 10_000).code()).isEqualTo(ErrorCode.INVALID_PARAMS);
    }

    @Test
    void treeShowsFileSizesOnlyWhenAsked() throws Exception {
        f.write("d/a.txt", "12345");
        List<Map<String, Object>> e = list(f.call("file_tree", "sizes", true).get("entries"));
        assertThat(e.get(0)).containsEntry("path", "d/").containsEntry("size", null);
        assertThat(e.get(1)).containsEntry("path", "d/a.txt").containsEntry("size", 5);
        assertThat(list(f.call("file_tree").get("entries")).get(1)).doesNotContainKey("size");
    }

    @Test
    void treeShowsGeneratedDirectoriesWithoutEnteringThem() throws Exception {
        f.write("node_modules/x/index.js", "x");
        f.write("src/a.js", "a");
        Map<String, Object> r = f.call("file_tree");
        assertThat(treePaths(r)).containsExactly("node_modules/", "src/", "src/a.js");
        assertThat(r.get("skippedGeneratedDirs")).isEqualTo(1);
        assertThat(treePaths(f.call("file_tree", "includeGenerated", true))).contains("node_modules/x/index.js");
    }

    @Test
    void treeIsCutAtTheEntryLimitAndSaysHowToSeeTheRest() throws Exception {
        int over = FileToolSettings.defaults().listMaxEntries() + 5;
        for (int i = 0; i < over; i++) {
            f.write(String.format("many/f%05d.txt", i), "");
        }
        Map<String, Object> r = f.call("file_tree");
        assertThat(list(r.get("entries"))).hasSize(FileToolSettings.defaults().listMaxEntries());
        assertThat(treePaths(r).get(0)).isEqualTo("many/");
        assertThat(r).containsEntry("truncated", true);
        assertThat((String) r.get("hint")).contains("listMaxEntries").contains("maxDepth");
    }

    @Test
    void treeResultStaysWithinTheResultBudgetAndSaysHowToSeeTheRest() throws Exception {
        StringBuilder dir = new StringBuilder();
        for (int i = 0; i < 4; i++) {
            dir.append(i == 0 ? "" : "/").append("d").append(i).append("x".repeat(245));
        }
        for (int i = 0; i < 900; i++) {   // 900 paths of ~1,240 chars: over 1 MiB of JSON, under 1,000 entries
            f.write(dir + "/f" + i + "y".repeat(240), "");
        }
        Map<String, Object> r = f.call("file_tree", "maxDepth", 4);
        List<Map<String, Object>> e = list(r.get("entries"));
        assertThat(jsonBytes(e)).isLessThanOrEqualTo(FileToolSettings.DEFAULT_RESULT_MAX_BYTES);
        assertThat(e).isNotEmpty().hasSizeLessThan(904);
        assertThat(r).containsEntry("truncated", true);
        assertThat((String) r.get("hint")).contains("resultMaxBytes");
    }

    @Test
    void treeOfAFileOrAMissingDirectoryIsAClearError() throws Exception {
        f.write("a.txt", "a");
        assertThat(f.failure("file_tree", "path", "a.txt").code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(f.failure("file_tree", "path", "nope").code()).isEqualTo(ErrorCode.NOT_FOUND);
    }

    @Test
    void theLibrarysOwnFilesAreNeverShownInATree() throws Exception {
        plantLibraryFiles();
        assertThat(treePaths(f.call("file_tree", "includeGenerated", true))).containsExactly("sub/", "sub/visible.txt");
    }

    @Test
    void jailbreakTreeShowsLinksButNeverFollowsThemOut() throws Exception {
        Files.createSymbolicLink(f.path("out"), outside);
        Files.createSymbolicLink(f.path("s.txt"), outside.resolve("secret.txt"));
        Map<String, Object> r = f.call("file_tree", "sizes", true);
        assertThat(list(r.get("entries"))).containsExactly(entry("out", "symlink"), entry("s.txt", "symlink"));
        assertThat(r.toString()).doesNotContain("secret").doesNotContain(outside.toString());
        for (String p : new String[] {"out", "../outside", outside.toString()}) {
            assertThat(f.failure("file_tree", "path", p).code()).as(p).isEqualTo(ErrorCode.PATH_ESCAPE);
        }
    }

    private static Map<String, Object> entry(String path, String type) {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("path", path);
        m.put("type", type);
        m.put("size", null);
        return m;
    }
}
