package org.vancetope.worktarget.core.internal.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.FileToolSettings;
import org.vancetope.worktarget.core.internal.Utf8;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

class FileEngineTest {
    private FileSystem fs;
    private Path root;
    private ConfinedRoot gate;
    private FileEngine engine;

    @BeforeEach
    void setUp() throws IOException {
        fs = Jimfs.newFileSystem(Configuration.unix().toBuilder()
                .setAttributeViews("basic", "posix").build());
        root = Files.createDirectories(fs.getPath("/ws"));
        gate = ConfinedRoot.of(root);
        engine = new FileEngine(FileToolSettings.builder().grepMaxFileBytes(1024).build());
    }

    @AfterEach
    void tearDown() throws IOException {
        fs.close();
    }

    private Map<String, Object> run(String op, Object... kv) throws ToolException {
        Map<String, Object> p = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            p.put((String) kv[i], kv[i + 1]);
        }
        return engine.run(op, gate, p).toMap();
    }

    private ToolException fails(String op, Object... kv) {
        try {
            run(op, kv);
        } catch (ToolException e) {
            return e;
        }
        throw new AssertionError(op + " should have failed");
    }

    private void file(String rel, String content) throws IOException {
        Path p = root.resolve(rel);
        Files.createDirectories(p.getParent());
        Files.writeString(p, content);
    }

    private static String lines(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i <= n; i++) {
            sb.append("line ").append(i).append('\n');
        }
        return sb.toString();
    }

    // ------------------------------------------------------------------ read

    @Test
    void readPagesByLinesAndReportsWhereTheNextPageStarts() throws Exception {
        file("a.txt", lines(10));
        Map<String, Object> r = run("file_read", "path", "a.txt", "startLine", 3, "maxLines", 2);
        assertThat(r.get("content")).isEqualTo("line 3\nline 4\n");
        assertThat(r.get("endLine")).isEqualTo(4);
        assertThat(r.get("nextStartLine")).isEqualTo(5);
        assertThat(r.get("truncated")).isEqualTo(true);
        assertThat(r.get("totalLines")).isEqualTo(10L);
    }

    @Test
    void readStopsBeforeALineThatWouldExceedMaxChars() throws Exception {
        file("a.txt", lines(10));
        Map<String, Object> r = run("file_read", "path", "a.txt", "maxChars", 15);
        assertThat(r.get("content")).isEqualTo("line 1\nline 2\n");
        assertThat(r.get("nextStartLine")).isEqualTo(3);
    }

    @Test
    void readClipsASingleOverlongLineAndMovesOn() throws Exception {
        file("a.txt", "x".repeat(100) + "\nshort\n");
        Map<String, Object> r = run("file_read", "path", "a.txt", "maxChars", 10);
        assertThat(r.get("content")).isEqualTo("x".repeat(10));
        assertThat(r.get("nextStartLine")).isEqualTo(2);
        assertThat(r).containsKey("hint");
    }

    @Test
    void readOfAWholeSmallFileIsNotTruncated() throws Exception {
        file("a.txt", "one\ntwo");
        Map<String, Object> r = run("file_read", "path", "a.txt");
        assertThat(r.get("content")).isEqualTo("one\ntwo");
        assertThat(r.get("truncated")).isEqualTo(false);
        assertThat(r.get("nextStartLine")).isNull();
        assertThat(r.get("totalLines")).isEqualTo(2L);
        assertThat(r.get("totalChars")).isEqualTo(7L);
    }

    @Test
    void readPastTheEndIsAClearError() throws Exception {
        file("a.txt", lines(3));
        assertThat(fails("file_read", "path", "a.txt", "startLine", 9).getMessage()).contains("has 3 lines");
    }

    @Test
    void readOfABinaryFileIsRefused() throws Exception {
        Files.write(root.resolve("b.bin"), new byte[] {1, 0, 2});
        assertThat(fails("file_read", "path", "b.bin").getMessage()).contains("binary");
    }

    @Test
    void readOfMaxCharsAboveTheLimitIsRefusedNamingTheBound() {
        assertThat(fails("file_read", "path", "a.txt", "maxChars", 10_000_000).getMessage()).contains("100000");
    }

    // ------------------------------------------------------------------ write / edit

    @Test
    void writeKeepsThePermissionsOfTheFileItReplaces() throws Exception {
        file("run.sh", "old");
        Files.setPosixFilePermissions(root.resolve("run.sh"), PosixFilePermissions.fromString("rwxr-x---"));
        run("file_write", "path", "run.sh", "content", "new");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(root.resolve("run.sh"))))
                .isEqualTo("rwxr-x---");
        assertThat(Files.readString(root.resolve("run.sh"))).isEqualTo("new");
    }

    @Test
    void writeLeavesNoTempFilesBehind() throws Exception {
        run("file_write", "path", "d/x.txt", "content", "1");
        run("file_write", "path", "d/x.txt", "content", "2");
        try (var s = Files.list(root.resolve("d"))) {
            assertThat(s.map(p -> p.getFileName().toString()).toList()).containsExactly("x.txt");
        }
    }

    @Test
    void editShowsAShortDiffWithContext() throws Exception {
        file("a.txt", "alpha\nbeta\ngamma\n");
        Map<String, Object> r = run("file_edit", "path", "a.txt", "oldText", "beta", "newText", "BETA");
        assertThat(r.get("diff")).isEqualTo("@@ line 2 @@\n alpha\n-beta\n+BETA\n gamma\n");
        assertThat(r.get("line")).isEqualTo(2);
    }

    @Test
    void theHintOfDirectoriesTooDeepSaysToPassAPathFurtherDownOnceMaxDepthIsAtItsMost() throws Exception {
        engine = new FileEngine(FileToolSettings.builder().defaultMaxDepth(2).maxDepthLimit(3).build());
        file("a/b/c/d/e/deep.txt", "needle\n");

        assertThat((String) run("file_find", "pathGlob", "*.txt", "maxDepth", 1).get("hint"))
                .contains("pass a larger maxDepth (at most 3) to look there");
        for (String tool : java.util.List.of("file_find", "file_grep", "file_count")) {
            Map<String, Object> r = tool.equals("file_grep") ? run(tool, "pattern", "needle", "maxDepth", 3)
                    : tool.equals("file_find") ? run(tool, "pathGlob", "*.txt", "maxDepth", 3)
                    : run(tool, "maxDepth", 3);
            assertThat((String) r.get("hint")).as(tool).contains("maxDepth is at its most, 3: pass a path further "
                    + "down as path to look there").doesNotContain("larger maxDepth");
        }
    }

    @Test
    void theDiffOfAnEditOfTheLastLineShowsNoLineAfterIt() throws Exception {
        file("a.txt", "x\ny\n");
        Map<String, Object> r = run("file_edit", "path", "a.txt", "oldText", "y", "newText", "z");
        assertThat(r.get("diff")).isEqualTo("@@ line 2 @@\n x\n-y\n+z\n");

        file("b.txt", "x\ny\n\n");
        r = run("file_edit", "path", "b.txt", "oldText", "y", "newText", "z");
        assertThat(r.get("diff")).as("a real empty line after it").isEqualTo("@@ line 2 @@\n x\n-y\n+z\n \n");

        file("c.txt", "x\ny");
        r = run("file_edit", "path", "c.txt", "oldText", "y", "newText", "z");
        assertThat(r.get("diff")).isEqualTo("@@ line 2 @@\n x\n-y\n+z\n");
    }

    @Test
    void replaceAllReportsTheLineOfEachOccurrenceCountedOnFromTheOneBefore() throws Exception {
        file("a.txt", "x\ny\nx x\n\nx\n");
        Map<String, Object> r = run("file_edit", "path", "a.txt", "oldText", "x", "newText", "z", "replaceAll", true);
        assertThat(r.get("line")).isEqualTo(1);
        assertThat(r.get("replacements")).isEqualTo(4);
        assertThat((String) r.get("diff")).contains("@@ line 1 @@", "@@ line 3 @@", "@@ line 5 @@")
                .doesNotContain("@@ line 2 @@", "@@ line 4 @@");
        assertThat(Files.readString(root.resolve("a.txt"))).isEqualTo("z\ny\nz z\n\nz\n");
    }

    @Test
    void theDiffOfReplacementsOnOneLineShowsTheLineAsItWillBe() throws Exception {
        file("a.txt", "aaaa\n");
        Map<String, Object> r = run("file_edit", "path", "a.txt", "oldText", "aa", "newText", "b", "replaceAll", true);
        assertThat(r.get("diff")).isEqualTo("@@ line 1 @@\n-aaaa\n+bb\n");
        assertThat(Files.readString(root.resolve("a.txt"))).isEqualTo("bb\n");
    }

    @Test
    void theDiffOfADryRunReplaceAllShowsEveryChangedPlaceOnceWithItsFinalText() throws Exception {
        file("a.txt", "k1\nfoo\nfoo\nk2\nfoo foo\n");
        Map<String, Object> r = run("file_edit", "path", "a.txt", "oldText", "foo", "newText", "bar", "replaceAll", true,
                "dryRun", true);
        assertThat(r.get("diff")).isEqualTo("@@ line 2 @@\n k1\n-foo\n-foo\n+bar\n+bar\n k2\n"
                + "@@ line 5 @@\n k2\n-foo foo\n+bar bar\n");
        assertThat(r.get("replacements")).isEqualTo(4);
        assertThat(Files.readString(root.resolve("a.txt"))).isEqualTo("k1\nfoo\nfoo\nk2\nfoo foo\n");
    }

    @Test
    void theDiffOfSeveralEditsShowsWhatTheyLeftTogether() throws Exception {
        file("a.txt", "say again and again\nend\n");
        Map<String, Object> r = run("file_edit", "path", "a.txt", "edits", List.of(
                Map.of("oldText", "again", "newText", "x", "replaceAll", true),
                Map.of("oldText", "say", "newText", "shout")), "dryRun", true);
        assertThat(r.get("diff")).isEqualTo("@@ line 1 @@\n-say again and again\n+shout x and x\n end\n");
    }

    @Test
    void anEditThatChangesNothingShowsNoDiff() throws Exception {
        file("a.txt", "x\ny = 2\n");
        Map<String, Object> r = run("file_edit", "path", "a.txt", "oldText", "y = 2", "newText", "y = 2");
        assertThat(r.get("changed")).isEqualTo(false);
        assertThat(r.get("diff")).isEqualTo("");
    }

    @Test
    void theDiffMarksANewlineAddedOrRemovedAtTheEndOfTheFile() throws Exception {
        file("a.txt", "a\nc");
        Map<String, Object> r = run("file_edit", "path", "a.txt", "oldText", "c", "newText", "c\n");
        assertThat(r.get("diff")).isEqualTo("@@ line 2 @@\n a\n-c\n" + EditDiff.NO_NEWLINE + "\n+c\n");

        file("b.txt", "a\nc\n");
        r = run("file_edit", "path", "b.txt", "oldText", "c\n", "newText", "c");
        assertThat(r.get("diff")).isEqualTo("@@ line 2 @@\n a\n-c\n+c\n" + EditDiff.NO_NEWLINE + "\n");
    }

    @Test
    void theDiffOfInsertedLinesShowsTheirPlaceAndTheLinesAround() throws Exception {
        file("a.txt", "one\ntwo\nthree\n");
        Map<String, Object> r = run("file_edit", "path", "a.txt", "oldText", "two\n", "newText", "two\n2.5\n");
        assertThat(r.get("diff")).isEqualTo("@@ line 3 @@\n two\n+2.5\n three\n");
    }

    @Test
    void aLongDiffIsCutAtTheMostLinesAndSaysSo() throws Exception {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 500; i++) {
            sb.append("x").append(i).append("\nkeep\n");
        }
        file("a.txt", sb.toString());
        Map<String, Object> r = run("file_edit", "path", "a.txt", "oldText", "x", "newText", "y", "replaceAll", true);
        String diff = (String) r.get("diff");
        assertThat(diff.lines().count()).isLessThanOrEqualTo(FileToolSettings.defaults().editDiffMaxLines() + 1L);
        assertThat(diff).endsWith("more changed lines follow)\n").startsWith("@@ line 1 @@\n-x0\n+y0\n keep\n");
    }

    @Test
    void aMatchFarIntoALongLineIsShownWithTheTextAroundIt() throws Exception {
        file("bundle.txt", "x".repeat(300_000) + "foo(1)" + "y".repeat(10) + "\n");
        Map<String, Object> r = run(new FileEngine(FileToolSettings.builder().grepMaxFileBytes(1 << 20).build()),
                "file_grep", "pattern", "fo+\\(");
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> matches = (List<Map<String, Object>>) r.get("matches");
        String text = (String) matches.get(0).get("text");
        assertThat(text).contains("foo(1)yyyyyyyyyy").startsWith("…[clipped ").doesNotEndWith("chars]");
        assertThat(text.length()).isLessThan(FileToolSettings.defaults().grepLineClipChars() + 60);
    }

    @Test
    void aMatchNearTheStartOfALongLineIsShownFromTheStart() throws Exception {
        file("bundle.txt", "foo" + "x".repeat(300_000) + "\n");
        Map<String, Object> r = run(new FileEngine(FileToolSettings.builder().grepMaxFileBytes(1 << 20).build()),
                "file_grep", "pattern", "foo", "literal", true);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> matches = (List<Map<String, Object>>) r.get("matches");
        assertThat((String) matches.get(0).get("text")).startsWith("fooxxx").endsWith("chars]");
    }

    @Test
    void aTextFileWithANulFarIntoItIsSkippedAsBinaryAndTheHintSaysSo() throws Exception {
        file("late.log", "foo line\n".repeat(2000) + "x\u0000y\nfoo after\n");
        Map<String, Object> r = run(new FileEngine(FileToolSettings.builder().grepMaxFileBytes(1 << 20).build()),
                "file_grep", "pattern", "foo");
        assertThat(r.get("matches")).isEqualTo(List.of());
        assertThat(r.get("skippedBinary")).isEqualTo(1);
        assertThat((String) r.get("hint")).contains("1 file that starts as text but holds a NUL byte further on",
                "'late.log'", "with -a");
    }

    @Test
    void fileCountSkipsTheFileWithALateNulThatFileGrepSkips() throws Exception {
        file("late.log", "foo line\n".repeat(2000) + "x\u0000y\nfoo after\n");
        file("plain.txt", "foo\n");
        file("late-no-match.log", "bar line\n".repeat(2000) + "x\u0000y\n");
        Map<String, Object> r = run("file_count", "pattern", "foo");
        assertThat(r.get("matchingLines")).as("as many as file_grep lists").isEqualTo(1L);
        assertThat(r.get("filesWithMatches")).isEqualTo(1);
        assertThat(r.get("skippedBinary")).isEqualTo(1);
        assertThat(run("file_count", "path", "late.log", "pattern", "foo").get("matchingLines"))
                .as("one file named: counted, as file_count counts a named binary file").isEqualTo(2001L);
    }

    @Test
    void aBinaryFileFromItsStartGetsNoHint() throws Exception {
        file("blob.bin", "\u0000foo" + "z".repeat(10_000) + "\n");
        Map<String, Object> r = run(new FileEngine(FileToolSettings.builder().grepMaxFileBytes(1 << 20).build()),
                "file_grep", "pattern", "foo");
        assertThat(r.get("skippedBinary")).isEqualTo(1);
        assertThat(r.get("hint")).isNull();
    }

    @Test
    void aFileThatLooksBinaryIsNotEditedAsText() throws Exception {
        file("nul.bin", "foo\u0000bar\nfoo\n");
        ToolException e = fails("file_edit", "path", "nul.bin", "oldText", "foo", "newText", "FOO", "replaceAll", true);
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).contains("looks binary", "unchanged");
        assertThat(Files.readString(root.resolve("nul.bin"))).isEqualTo("foo\u0000bar\nfoo\n");
    }

    @Test
    void editsThatUndoEachOtherChangeAndWriteNothing() throws Exception {
        file("a.txt", "aaa\nbbb\n");
        Files.setLastModifiedTime(root.resolve("a.txt"), java.nio.file.attribute.FileTime.fromMillis(0));
        Map<String, Object> r = run("file_edit", "path", "a.txt", "edits", List.of(
                Map.of("oldText", "aaa", "newText", "zzz"), Map.of("oldText", "zzz", "newText", "aaa")));
        assertThat(r.get("changed")).isEqualTo(false);
        assertThat(r.get("replacements")).isEqualTo(2);
        assertThat(r.get("diff")).isEqualTo("");
        assertThat(Files.getLastModifiedTime(root.resolve("a.txt")).toMillis()).as("not rewritten").isZero();
    }

    @Test
    void theDiffOfAChangeFarIntoALongLineShowsTheChange() throws Exception {
        String line = "{\"a\":1,".repeat(500) + "\"version\":\"1.2.3\"," + "\"b\":2,".repeat(300) + "}\n";
        file("min.json", line);
        Map<String, Object> r = run("file_edit", "path", "min.json", "oldText", "\"1.2.3\"", "newText", "\"9.9.9\"",
                "dryRun", true);
        String diff = (String) r.get("diff");
        assertThat(diff).contains("\"version\":\"1.2.3\"", "\"version\":\"9.9.9\"", "…[clipped ");
    }

    /** Runs an edit while {@code change} writes the file each time after the edit read it. */    /** Runs an edit while {@code change} writes the file each time after the edit read it. */
    private Object editWhileChanging(Runnable change, Object... kv) throws Exception {
        FileEditing.afterReadForTests = change;
        try {
            return run("file_edit", kv);
        } catch (ToolException e) {
            return e;
        } finally {
            FileEditing.afterReadForTests = null;
        }
    }

    private Runnable writes(String name, String... contents) {
        int[] call = {0};
        return () -> {
            try {
                Files.writeString(root.resolve(name), contents[Math.min(call[0]++, contents.length - 1)]);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        };
    }

    @Test
    void aChangeSavedWhileAnEditRanIsKeptAndTheEditIsAppliedToIt() throws Exception {
        file("a.txt", "alpha\nbeta\ngamma\n");
        Runnable once = writes("a.txt", "alpha\nbeta\ngamma\ndelta\n");
        boolean[] done = {false};
        Object r = editWhileChanging(() -> {
            if (!done[0]) {
                done[0] = true;
                once.run();
            }
        }, "path", "a.txt", "oldText", "beta", "newText", "BETA");
        assertThat(r).isInstanceOf(Map.class);
        assertThat(Files.readString(root.resolve("a.txt"))).isEqualTo("alpha\nBETA\ngamma\ndelta\n");
    }

    @Test
    void aChangeThatRemovedTheEditedTextMeanwhileFailsNotFoundAndIsKept() throws Exception {
        file("a.txt", "alpha\nbeta\ngamma\n");
        boolean[] done = {false};
        Runnable once = writes("a.txt", "alpha\ngamma\n");
        Object r = editWhileChanging(() -> {
            if (!done[0]) {
                done[0] = true;
                once.run();
            }
        }, "path", "a.txt", "oldText", "beta", "newText", "BETA");
        assertThat(r).isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThat(Files.readString(root.resolve("a.txt"))).isEqualTo("alpha\ngamma\n");
    }

    @Test
    void aFileThatKeepsChangingFailsSourceChangedAndKeepsTheLastChange() throws Exception {
        file("a.txt", "beta\n");
        Object r = editWhileChanging(writes("a.txt", "beta\n1\n", "beta\n12\n", "beta\n123\n"),
                "path", "a.txt", "oldText", "beta", "newText", "BETA");
        assertThat(r).isInstanceOfSatisfying(ToolException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.SOURCE_CHANGED);
            assertThat(e.getMessage()).contains("changed while it was being edited, 3 times", "nothing was written");
        });
        assertThat(Files.readString(root.resolve("a.txt"))).isEqualTo("beta\n123\n");
        try (var s = Files.list(root)) {
            assertThat(s.map(p -> p.getFileName().toString()).toList()).containsExactly("a.txt");
        }
    }

    @Test
    void replaceAllOfAFrequentTextInALargeFileFinishes() throws Exception {
        // counting each occurrence's line from the start of the file took hours at this size (n^2 / 2 steps)
        file("big.txt", "x".repeat(2_000_000));
        Map<String, Object> r = run("file_edit", "path", "big.txt", "oldText", "x", "newText", "y", "replaceAll", true);
        assertThat(r.get("replacements")).isEqualTo(2_000_000);
        assertThat(Files.readString(root.resolve("big.txt"))).isEqualTo("y".repeat(2_000_000));
    }

    @Test
    void editAmbiguousNamesTheLinesAndChangesNothing() throws Exception {
        file("a.txt", "x = 1\ny\nx = 1\n");
        ToolException e = fails("file_edit", "path", "a.txt", "oldText", "x = 1", "newText", "x = 2");
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).contains("2 times").contains("lines 1, 3").contains("more surrounding lines");
        assertThat(Files.readString(root.resolve("a.txt"))).isEqualTo("x = 1\ny\nx = 1\n");
    }

    @Test
    void editOverlappingOccurrencesCountAsAmbiguous() throws Exception {
        file("a.txt", "aaa");
        assertThat(fails("file_edit", "path", "a.txt", "oldText", "aa", "newText", "b").getMessage()).contains("2 times");
    }

    @Test
    void editNotFoundInAFileWithLineBreaksOfBothKindsHintsAtCrlf() throws Exception {
        file("a.txt", "one\r\ntwo\r\nthree\n");
        ToolException e = fails("file_edit", "path", "a.txt", "oldText", "one\ntwo", "newText", "x");
        assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(e.getMessage()).contains("The file uses CRLF line endings; include '\\r\\n' in oldText.");
        assertThat(Files.readString(root.resolve("a.txt"))).isEqualTo("one\r\ntwo\r\nthree\n");
    }

    @Test
    void editNotFoundQuotesTheTextThatDiffersOnlyInWhitespaceToCopy() throws Exception {
        file("A.java", "class A {\n\tint x = 1;\n\tint y = 2;\n}\n");
        ToolException e = fails("file_edit", "path", "A.java", "oldText", "    int x = 1;\n    int y = 2;", "newText", "z");
        assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(e.getMessage()).isEqualTo("oldText was not found in 'A.java'; the file is unchanged. A text that "
                + "differs from it only in whitespace (indentation, tabs, spaces or line breaks) is at line 2; there the "
                + "file reads:\nint x = 1;\n\tint y = 2;\nCopy that text exactly into oldText.");
        assertThat(Files.readString(root.resolve("A.java"))).isEqualTo("class A {\n\tint x = 1;\n\tint y = 2;\n}\n");
    }

    @Test
    void theWhitespaceHintCountsTheOtherPlacesAndCutsALongText() throws Exception {
        file("a.txt", "a  b\nx\na\tb\nx\na\nb\n");
        assertThat(fails("file_edit", "path", "a.txt", "oldText", "a b", "newText", "c").getMessage())
                .contains("is at line 1 (and at 2 other places); there the file reads:\na  b\nCopy");
        String words = "word ".repeat(400);
        file("long.txt", "start\n" + words.replace(" ", "  ") + "\n");
        assertThat(fails("file_edit", "path", "long.txt", "oldText", words, "newText", "c").getMessage())
                .contains("is at line 2; there the file reads (the first 1000 characters):\n" + "word  ".repeat(166) + "word")
                .endsWith("\nCopy that text exactly into oldText.");
        assertThat(fails("file_edit", "path", "a.txt", "oldText", "q r", "newText", "c").getMessage())
                .endsWith("the file is unchanged. Call file_read and copy the exact text, including whitespace and line "
                        + "breaks.");
    }

    @Test
    void editNotFoundQuotesTheRunOfLinesMostLikeTheBlockMeant() throws Exception {
        file("app.py", "import os\n\ndef main():\n    path = os.getcwd()\n    items = os.listdir(path)\n"
                + "    for item in items:\n        print(item)\n    return 0\n");
        // the model retyped the block with one line wrong
        ToolException e = fails("file_edit", "path", "app.py", "oldText", "    path = os.getcwd()\n"
                + "    entries = os.listdir(path)\n    for item in items:\n        print(item)", "newText", "pass");
        assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(e.getMessage()).isEqualTo("oldText was not found in 'app.py'; the file is unchanged. The text most "
                + "like it is at lines 4-7 (3 of 4 lines the same); there the file reads:\n    path = os.getcwd()\n"
                + "    items = os.listdir(path)\n    for item in items:\n        print(item)\nIf that is the text meant, "
                + "copy it exactly into oldText; if not, read the file with file_read.");
        assertThat(Files.readString(root.resolve("app.py"))).startsWith("import os\n\ndef main():\n    path =");
    }

    @Test
    void editNotFoundQuotesTheLineMostLikeASingleLineMeant() throws Exception {
        file("Main.java", "class Main {\n    static final int LIMIT = 100;\n    static final String NAME = \"x\";\n}\n");
        ToolException e = fails("file_edit", "path", "Main.java", "oldText", "static final int LIMITS = 100;",
                "newText", "static final int LIMIT = 200;");
        assertThat(e.getMessage()).endsWith("the file is unchanged. The line most like it is line 2; there the file "
                + "reads:\n    static final int LIMIT = 100;\nIf that is the text meant, copy it exactly into oldText; "
                + "if not, read the file with file_read.");
    }

    @Test
    void editNotFoundWithNothingAlikeKeepsTheAdviceToReadTheFile() throws Exception {
        file("a.txt", "alpha beta\ngamma delta\nepsilon\n");
        String plain = "the file is unchanged. Call file_read and copy the exact text, including whitespace and line "
                + "breaks.";
        assertThat(fails("file_edit", "path", "a.txt", "oldText", "completely different words", "newText", "x")
                .getMessage()).endsWith(plain);
        assertThat(fails("file_edit", "path", "a.txt", "oldText", "one line here\nanother line there\nthird", "newText",
                "x").getMessage()).as("no line of the block in the file").endsWith(plain);
        assertThat(fails("file_edit", "path", "a.txt", "oldText", "alpha beta\nsomething\nelse\nentirely", "newText",
                "x").getMessage()).as("one line of four is not the block").endsWith(plain);
        assertThat(fails("file_edit", "path", "a.txt", "oldText", "}", "newText", "x").getMessage())
                .as("too short to say").endsWith(plain);
    }

    @Test
    void theClosestTextHintCutsALongQuote() throws Exception {
        StringBuilder big = new StringBuilder();
        for (int i = 0; i < 60; i++) {
            big.append("line number ").append(i).append(" of the block with some words\n");
        }
        file("big.txt", big.toString());
        String want = big.toString().replace("line number 30 of", "line number thirty of").strip();
        assertThat(fails("file_edit", "path", "big.txt", "oldText", want, "newText", "x").getMessage())
                .contains("The text most like it is at lines 1-60 (59 of 60 lines the same); there the file reads "
                        + "(the first 1000 characters):\nline number 0 of");
    }

    @Test
    void editOfAFileWithOnlyCrlfLineBreaksTakesTheBareLineBreaksOfTheEditAsCrlf() throws Exception {
        file("a.txt", "one\r\ntwo\r\nthree\r\n");
        Map<String, Object> r = run("file_edit", "path", "a.txt", "oldText", "one\ntwo", "newText", "1\n2\n2b");
        assertThat(r.get("changed")).isEqualTo(true);
        assertThat(r.get("line")).isEqualTo(1);
        assertThat(Files.readString(root.resolve("a.txt"))).isEqualTo("1\r\n2\r\n2b\r\nthree\r\n");
    }

    @Test
    void newLinesInsertedIntoAFileWithOnlyCrlfLineBreaksGetCrlf() throws Exception {
        file("a.txt", "one\r\ntwo\r\nthree\r\n");
        run("file_edit", "path", "a.txt", "edits", List.of(Map.of("oldText", "two", "newText", "two\ninserted"),
                Map.of("oldText", "three\n", "newText", "3\n", "replaceAll", true)));
        assertThat(Files.readString(root.resolve("a.txt"))).isEqualTo("one\r\ntwo\r\ninserted\r\n3\r\n");
    }

    @Test
    void anEditThatSpellsOutACarriageReturnIsTakenAsItIs() throws Exception {
        file("a.txt", "one\r\ntwo\r\n");
        run("file_edit", "path", "a.txt", "oldText", "one\r\n", "newText", "one\nuno\n");
        assertThat(Files.readString(root.resolve("a.txt"))).isEqualTo("one\nuno\ntwo\r\n");
    }

    @Test
    void aFileWithLfLineBreaksIsEditedByteForByte() throws Exception {
        file("a.txt", "one\ntwo\n");
        run("file_edit", "path", "a.txt", "oldText", "one\ntwo", "newText", "1\n2");
        assertThat(Files.readString(root.resolve("a.txt"))).isEqualTo("1\n2\n");
        assertThat(FileEditing.onlyCrlf("x\r\ny\r\n".getBytes(StandardCharsets.UTF_8), 6)).isTrue();
        assertThat(FileEditing.onlyCrlf("x\r\ny\n".getBytes(StandardCharsets.UTF_8), 5)).isFalse();
        assertThat(FileEditing.onlyCrlf("\nx".getBytes(StandardCharsets.UTF_8), 2)).isFalse();
        assertThat(FileEditing.onlyCrlf("no line break".getBytes(StandardCharsets.UTF_8), 13)).isFalse();
    }

    @Test
    void editOfANonUtf8FileIsRefused() throws Exception {
        Files.write(root.resolve("l.txt"), new byte[] {'a', (byte) 0xE9, 'b'});
        assertThat(fails("file_edit", "path", "l.txt", "oldText", "a", "newText", "b").getMessage()).contains("UTF-8");
    }

    // ------------------------------------------------------------------ head / tail

    @Test
    void headAndTailOfALargeFile() throws Exception {
        file("log.txt", lines(1000));
        Map<String, Object> r = run("file_head_tail", "path", "log.txt", "head", 2, "tail", 3);
        assertThat(r.get("head")).isEqualTo("line 1\nline 2\n");
        assertThat(r.get("tail")).isEqualTo("line 998\nline 999\nline 1000\n");
        assertThat(r.get("headLines")).isEqualTo(2);
        assertThat(r.get("tailLines")).isEqualTo(3);
        assertThat((Long) r.get("omittedBytes")).isPositive();
    }

    @Test
    void headAndTailNeverOverlap() throws Exception {
        file("s.txt", "a\nb\nc\n");
        Map<String, Object> r = run("file_head_tail", "path", "s.txt", "head", 2, "tail", 2);
        assertThat(r.get("head")).isEqualTo("a\nb\n");
        assertThat(r.get("tail")).isEqualTo("c\n");
        assertThat(r.get("omittedBytes")).isEqualTo(0L);
    }

    @Test
    void tailWithoutFinalNewline() throws Exception {
        file("s.txt", "a\nb\nc");
        assertThat(run("file_head_tail", "path", "s.txt", "tail", 2).get("tail")).isEqualTo("b\nc");
    }

    @Test
    void tailAcrossChunkBoundaries() throws Exception {
        file("big.txt", lines(40_000));
        Map<String, Object> r = run("file_head_tail", "path", "big.txt", "tail", 5000);
        String tail = (String) r.get("tail");
        assertThat(tail).startsWith("line 35001\n").endsWith("line 40000\n");
        assertThat(r.get("tailLines")).isEqualTo(5000);
    }

    @Test
    void headTailNeedsAtLeastOneCount() {
        assertThat(fails("file_head_tail", "path", "x", "head", 0, "tail", 0).code()).isEqualTo(ErrorCode.INVALID_PARAMS);
    }

    // ------------------------------------------------------------------ grep

    @Test
    void grepFindsRegexMatchesWithLineNumbers() throws Exception {
        file("src/A.java", "class A {\n  int foo = 1;\n  int bar = 2;\n}\n");
        Map<String, Object> r = run("file_grep", "pattern", "int \\w+ = 2");
        assertThat(r.get("matches")).isEqualTo(List.of(Map.of("path", "src/A.java", "line", 3, "text", "  int bar = 2;")));
    }

    @Test
    void aPatternLongerThanTheLimitIsRefusedBeforeItIsCompiled() throws Exception {
        file("a.txt", "a".repeat(Searcher.MAX_PATTERN_CHARS) + "\n");
        String longest = "a".repeat(Searcher.MAX_PATTERN_CHARS);
        FileEngine big = new FileEngine(FileToolSettings.builder().grepMaxFileBytes(1 << 20).build());
        assertThat((List<?>) run(big, "file_grep", "pattern", longest, "literal", true).get("matches")).hasSize(1);
        String over = longest + "a";
        for (String tool : List.of("file_grep", "file_count")) {
            ToolException e = fails(tool, "pattern", over);
            assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
            assertThat(e.getMessage()).contains("pattern has 10001 characters; at most 10000", "shorter part");
        }
    }

    @Test
    void grepAnchorsApplyPerLine() throws Exception {
        file("a.txt", "foo\nbar foo\nfoo bar\n");
        Map<String, Object> r = run("file_grep", "pattern", "foo$");
        assertThat(((List<?>) r.get("matches"))).hasSize(2);
        r = run("file_grep", "pattern", "^foo");
        assertThat(((List<?>) r.get("matches"))).hasSize(2);
    }

    @Test
    void anEmptyLineMatchesAnchorsAsInGrep() throws Exception {
        file("a.txt", "a\n\nb\n\n");
        file("c.txt", "a\r\n\r\nb\r\n");
        assertThat(run("file_grep", "pattern", "^$").get("matches")).isEqualTo(List.of(
                Map.of("path", "a.txt", "line", 2, "text", ""), Map.of("path", "a.txt", "line", 4, "text", ""),
                Map.of("path", "c.txt", "line", 2, "text", "")));
        assertThat(run("file_grep", "pattern", "^\\s*$", "countOnly", true).get("totalMatches")).isEqualTo(3L);
        assertThat(run("file_grep", "pattern", "^", "path", "a.txt", "countOnly", true).get("totalMatches"))
                .as("every line, as grep -c '^'").isEqualTo(4L);
        assertThat(run("file_count", "pattern", "^$").get("matchingLines")).isEqualTo(3L);
    }

    @Test
    void grepAnchorsMatchAtTheEndsOfACrlfLine() throws Exception {
        file("a.txt", "foo\r\nbar foo\r\nfoo bar\r\n");
        assertThat(run("file_grep", "pattern", "foo$").get("matches")).isEqualTo(List.of(
                Map.of("path", "a.txt", "line", 1, "text", "foo"), Map.of("path", "a.txt", "line", 2, "text", "bar foo")));
        assertThat(run("file_grep", "pattern", "^f\\w+$").get("matches"))
                .isEqualTo(List.of(Map.of("path", "a.txt", "line", 1, "text", "foo")));
    }

    @Test
    void grepAnchorsDoNotMatchAtALoneCarriageReturnOrUnicodeLineSeparatorInsideALine() throws Exception {
        // only \n ends a line, as in ripgrep and GNU grep: these lines are "a\rfoo", "b\u0085foo", "c\u2028foo"
        file("a.txt", "a\rfoo\nb\u0085foo\nc\u2028foo x\n");
        assertThat(run("file_grep", "pattern", "^foo").get("matches")).isEqualTo(List.of());
        assertThat(run("file_grep", "pattern", "[abc]$").get("matches")).isEqualTo(List.of());
        assertThat(run("file_grep", "pattern", "^c.foo x$").get("matches")).as("'.' matches U+2028 inside a line")
                .isEqualTo(List.of(Map.of("path", "a.txt", "line", 3, "text", "c\u2028foo x")));
        assertThat(run("file_grep", "pattern", "^foo", "countOnly", true).get("count")).isEqualTo(0);
    }

    @Test
    void grepWithoutALiteralToGuideItMatchesDotAtAUnicodeLineSeparatorInsideALine() throws Exception {
        file("u.txt", "b\u0085foo\nc\u2028foo\nd\n");
        assertThat(run("file_grep", "pattern", "^\\w.\\w+$").get("matches")).isEqualTo(List.of(
                Map.of("path", "u.txt", "line", 1, "text", "b\u0085foo"),
                Map.of("path", "u.txt", "line", 2, "text", "c\u2028foo")));
        assertThat((List<?>) run("file_grep", "pattern", "^\\w.\\w+$", "multiline", true).get("matches")).hasSize(2);
        assertThat(run("file_grep", "pattern", "[bc]$", "multiline", true).get("matches")).isEqualTo(List.of());
    }

    @Test
    void grepTakesAByteOrderMarkForNoPartOfTheFirstLine() throws Exception {
        Files.write(root.resolve("bom.txt"), new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, 'f', 'i', 'r', 's', 't', '\n',
                's', 'e', 'c', 'o', 'n', 'd', '\n'});
        Map<String, Object> r = run("file_grep", "pattern", "^first");
        assertThat(r.get("matches")).isEqualTo(List.of(Map.of("path", "bom.txt", "line", 1, "text", "first")));
        assertThat(run("file_grep", "pattern", "^second$").get("matches"))
                .isEqualTo(List.of(Map.of("path", "bom.txt", "line", 2, "text", "second")));
        assertThat(run("file_grep", "pattern", "first", "countOnly", true).get("count")).isEqualTo(1);
    }

    @Test
    void grepDoesNotReportMatchesSpanningLines() throws Exception {
        file("a.txt", "a\nb\na b\n");
        Map<String, Object> r = run("file_grep", "pattern", "a\\sb");
        assertThat(r.get("matches")).isEqualTo(List.of(Map.of("path", "a.txt", "line", 3, "text", "a b")));
    }

    @Test
    void grepCaseInsensitive() throws Exception {
        file("a.txt", "Hello\nhello\nHELLO\n");
        assertThat((List<?>) run("file_grep", "pattern", "hello", "caseInsensitive", true).get("matches")).hasSize(3);
        assertThat((List<?>) run("file_grep", "pattern", "hello").get("matches")).hasSize(1);
    }

    @Test
    void grepContextLines() throws Exception {
        file("a.txt", "1\n2\nX\n4\n5\n");
        @SuppressWarnings("unchecked")
        Map<String, Object> m = ((List<Map<String, Object>>) run("file_grep", "pattern", "X", "contextBefore", 1,
                "contextAfter", 2).get("matches")).get(0);
        assertThat(m.get("before")).isEqualTo(List.of("2"));
        assertThat(m.get("after")).isEqualTo(List.of("4", "5"));
    }

    @Test
    void grepClipsLongLinesWithAMarker() throws Exception {
        file("a.txt", "needle" + "y".repeat(700) + "\n");
        @SuppressWarnings("unchecked")
        String text = (String) ((List<Map<String, Object>>) run("file_grep", "pattern", "needle").get("matches"))
                .get(0).get("text");
        assertThat(text).startsWith("needle").endsWith("…[clipped 106 chars]");
    }

    @Test
    void grepSkipsAndCountsLargeBinaryAndNonUtf8Files() throws Exception {
        file("big.txt", "needle\n" + "z".repeat(2000));
        Files.write(root.resolve("bin.dat"), new byte[] {'n', 'e', 'e', 'd', 'l', 'e', 0});
        Files.write(root.resolve("latin.txt"), "needle é".getBytes(StandardCharsets.ISO_8859_1));
        file("ok.txt", "needle ü\n");
        Map<String, Object> r = run("file_grep", "pattern", "needle");
        assertThat((List<?>) r.get("matches")).hasSize(1);
        assertThat(r.get("skippedLarge")).isEqualTo(1);
        assertThat(r.get("skippedBinary")).isEqualTo(1);
        assertThat(r.get("skippedNonUtf8")).isEqualTo(1);
    }

    @Test
    void grepNamesTheFilesItCouldNotSearchAndHowToSearchThem() throws Exception {
        file("big.txt", "needle\n" + "z".repeat(2000));
        Files.write(root.resolve("latin.txt"), "needle é".getBytes(StandardCharsets.ISO_8859_1));
        Files.write(root.resolve("bin.dat"), new byte[] {'n', 'e', 'e', 'd', 'l', 'e', 0});
        Map<String, Object> r = run("file_grep", "pattern", "needle");
        assertThat((List<?>) r.get("matches")).isEmpty();
        assertThat((String) r.get("hint")).isEqualTo("Not searched, so matches there are not shown: 1 file over 1024 "
                + "bytes (grepMaxFileBytes) ('big.txt'); 1 file that is not UTF-8 text ('latin.txt'). Search them with "
                + "exec_run, for example grep -n -F -e TEXT -- FILE for a fixed string or grep -n -P -e PATTERN -- FILE "
                + "for a regular expression.");
    }

    @Test
    void grepNamesTheFirstThreeSkippedFilesInPathOrderAndCountsTheRest() throws Exception {
        for (String n : List.of("e.txt", "a.txt", "d/c.txt", "b.txt")) {
            file(n, "z".repeat(2000));
        }
        file("ok.txt", "needle\n");
        Map<String, Object> r = run("file_grep", "pattern", "needle");
        assertThat((List<?>) r.get("matches")).hasSize(1);
        assertThat((String) r.get("hint")).startsWith("Not searched, so matches there are not shown: 4 files over 1024 "
                + "bytes (grepMaxFileBytes) ('a.txt', 'b.txt', 'd/c.txt', …). Search them with exec_run");
        Map<String, Object> counts = run("file_grep", "pattern", "needle", "countOnly", true);
        assertThat((String) counts.get("hint")).isEqualTo(r.get("hint"));
    }

    @Test
    void grepWithNothingSkippedHasNoHint() throws Exception {
        file("ok.txt", "needle\n");
        Files.write(root.resolve("bin.dat"), new byte[] {'n', 'e', 'e', 'd', 'l', 'e', 0});
        assertThat(run("file_grep", "pattern", "needle")).doesNotContainKey("hint");
    }

    @Test
    void grepLimitTruncatesInPathOrder() throws Exception {
        for (int i = 0; i < 30; i++) {
            file(String.format("f%02d.txt", i), "hit\nhit\n");
        }
        Map<String, Object> r = run("file_grep", "pattern", "hit", "limit", 5);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> m = (List<Map<String, Object>>) r.get("matches");
        assertThat(m).extracting(x -> x.get("path")).containsExactly("f00.txt", "f00.txt", "f01.txt", "f01.txt", "f02.txt");
        assertThat(r.get("truncated")).isEqualTo(true);
    }

    @Test
    void grepBadPatternIsAClearError() {
        ToolException e = fails("file_grep", "pattern", "foo(");
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).contains("regular expression");
    }

    @Test
    void grepPrunesGeneratedDirectoriesUnlessAsked() throws Exception {
        file("src/a.txt", "hit");
        file("node_modules/x/a.txt", "hit");
        file(".git/config", "hit");
        Map<String, Object> r = run("file_grep", "pattern", "hit");
        assertThat((List<?>) r.get("matches")).hasSize(1);
        assertThat(r.get("skippedGeneratedDirs")).isEqualTo(2);
        assertThat((List<?>) run("file_grep", "pattern", "hit", "includeGenerated", true).get("matches")).hasSize(3);
    }

    @Test
    void grepOneFileReportsRootRelativePaths() throws Exception {
        file("src/a.txt", "x\nhit\n");
        @SuppressWarnings("unchecked")
        Map<String, Object> m = ((List<Map<String, Object>>) run("file_grep", "pattern", "hit", "path", "src/a.txt")
                .get("matches")).get(0);
        assertThat(m.get("path")).isEqualTo("src/a.txt");
        assertThat(m.get("line")).isEqualTo(2);
    }

    // ------------------------------------------------------------------ find

    @Test
    void findDoubleStarAlsoMatchesAtTheWalkRoot() throws Exception {
        file("pom.xml", "");
        file("a/pom.xml", "");
        file("a/b/pom.xml", "");
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> f = (List<Map<String, Object>>) run("file_find", "pathGlob", "**/pom.xml").get("files");
        assertThat(f).extracting(x -> x.get("path")).containsExactly("a/b/pom.xml", "a/pom.xml", "pom.xml");
    }

    @Test
    void findGlobIsRelativeToPathButResultsAreRootRelative() throws Exception {
        file("src/main/A.java", "");
        file("src/test/B.java", "");
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> f = (List<Map<String, Object>>) run("file_find", "path", "src",
                "pathGlob", "main/*.java").get("files");
        assertThat(f).extracting(x -> x.get("path")).containsExactly("src/main/A.java");
    }

    @Test
    void findBySizeSortedBySize() throws Exception {
        file("small.txt", "1");
        file("mid.txt", "12345");
        file("big.txt", "1234567890");
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> f = (List<Map<String, Object>>) run("file_find", "minSize", 2, "sortBy", "size")
                .get("files");
        assertThat(f).extracting(x -> x.get("path")).containsExactly("big.txt", "mid.txt");
    }

    @Test
    void findRespectsMaxDepth() throws Exception {
        file("a.txt", "");
        file("d1/b.txt", "");
        file("d1/d2/c.txt", "");
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> f = (List<Map<String, Object>>) run("file_find", "maxDepth", 1).get("files");
        assertThat(f).extracting(x -> x.get("path")).containsExactly("a.txt", "d1/b.txt");
    }

    @Test
    void findWithSwappedSizeBoundsIsRefusedRatherThanEmpty() throws Exception {
        file("a.txt", "12345");
        ToolException e = fails("file_find", "minSize", 10, "maxSize", 1);
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).isEqualTo("Parameter 'minSize' (10) is larger than 'maxSize' (1), so no file could "
                + "match. Swap them, or leave one out.");
        assertThat(run("file_find", "minSize", 5, "maxSize", 5).get("count")).as("equal bounds: one size").isEqualTo(1);
    }

    @Test
    void findWithSwappedTimeBoundsIsRefusedRatherThanEmpty() {
        ToolException e = fails("file_find", "modifiedAfter", "2026-02-01", "modifiedBefore", "2026-01-01");
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).contains("'modifiedAfter' (2026-02-01) is not earlier than 'modifiedBefore' "
                + "(2026-01-01)", "Swap them");
        assertThat(fails("file_find", "modifiedAfter", "2026-01-01T00:00:00Z", "modifiedBefore", "2026-01-01")
                .getMessage()).contains("is not earlier than");
    }

    @Test
    void findBadDateIsAClearError() {
        assertThat(fails("file_find", "modifiedAfter", "yesterday").getMessage()).contains("ISO-8601");
    }

    // ------------------------------------------------------------------ count

    @Test
    void countLinesCharsAndBytesOfAFile() throws Exception {
        file("a.txt", "héllo\nworld");
        Map<String, Object> r = run("file_count", "path", "a.txt");
        assertThat(r.get("lines")).isEqualTo(2L);
        assertThat(r.get("chars")).isEqualTo(11L);
        assertThat(r.get("bytes")).isEqualTo(12L);
    }

    @Test
    void countMatchingLinesInATree() throws Exception {
        file("a.txt", "TODO one\nok\nTODO two\n");
        file("b/c.txt", "TODO three");
        Map<String, Object> r = run("file_count", "pattern", "TODO");
        assertThat(r.get("matchingLines")).isEqualTo(3L);
        assertThat(r.get("filesWithMatches")).isEqualTo(2);
        assertThat(r.get("files")).isEqualTo(2);
    }

    // ------------------------------------------------------------------ limits

    private FileEngine engine(FileToolSettings.Builder b) {
        return new FileEngine(b.build());
    }

    private Map<String, Object> run(FileEngine e, String op, Object... kv) throws ToolException {
        Map<String, Object> p = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            p.put((String) kv[i], kv[i + 1]);
        }
        return e.run(op, gate, p).toMap();
    }

    private ToolException fails(FileEngine e, String op, Object... kv) {
        try {
            run(e, op, kv);
        } catch (ToolException x) {
            return x;
        }
        throw new AssertionError(op + " should have failed");
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> maps(Object o) {
        return (List<Map<String, Object>>) o;
    }

    private static String numbered(int n, int width) {
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i <= n; i++) {
            String head = "line " + i + " ";
            sb.append(head).append("x".repeat(Math.max(0, width - head.length()))).append('\n');
        }
        return sb.toString();
    }

    @Test
    void readStopsAtTheResultBudgetAndSaysWhereToGoOn() throws Exception {
        file("a.txt", numbered(100, 99));                        // 100 chars a line, 101 bytes of JSON with "\n"
        FileEngine e = engine(FileToolSettings.builder().resultMaxBytes(1024));
        Map<String, Object> r = run(e, "file_read", "path", "a.txt", "maxChars", 100_000);
        assertThat(r.get("content")).isEqualTo(numbered(10, 99));
        assertThat(r.get("truncated")).isEqualTo(true);
        assertThat(r.get("nextStartLine")).isEqualTo(11);
        assertThat((String) r.get("hint")).contains("resultMaxBytes").contains("startLine 11");
    }

    @Test
    void readCountsEscapesAgainstTheResultBudget() throws Exception {
        file("q.txt", ("\"".repeat(99) + "\n").repeat(20));     // each quote is two bytes of JSON
        FileEngine e = engine(FileToolSettings.builder().resultMaxBytes(1024));
        Map<String, Object> r = run(e, "file_read", "path", "q.txt", "maxChars", 100_000);
        assertThat(((String) r.get("content")).length()).isEqualTo(5 * 100);
        assertThat(r.get("nextStartLine")).isEqualTo(6);
    }

    @Test
    void readClipsALineLongerThanTheResultBudget() throws Exception {
        file("long.txt", "é".repeat(5000) + "\nnext\n");
        FileEngine e = engine(FileToolSettings.builder().resultMaxBytes(1024));
        Map<String, Object> r = run(e, "file_read", "path", "long.txt", "maxChars", 100_000);
        assertThat(r.get("content")).isEqualTo("é".repeat(512));
        assertThat(r.get("nextStartLine")).isEqualTo(2);
        assertThat((String) r.get("hint")).contains("Line 1").contains("resultMaxBytes");
    }

    @Test
    void readTotalsMaxBytesZeroCountsOnlyWhenThePageReachesTheEnd() throws Exception {
        file("a.txt", lines(10));
        FileEngine e = engine(FileToolSettings.builder().readTotalsMaxBytes(0));
        Map<String, Object> first = run(e, "file_read", "path", "a.txt", "maxLines", 2);
        assertThat(first.get("totalsKnown")).isEqualTo(false);
        assertThat(first.get("totalLines")).isNull();
        Map<String, Object> rest = run(e, "file_read", "path", "a.txt", "startLine", 3);
        assertThat(rest.get("totalsKnown")).isEqualTo(true);
        assertThat(rest.get("totalLines")).isEqualTo(10L);
        assertThat(rest.get("totalChars")).isEqualTo((long) lines(10).length());
    }

    @Test
    void readPastTheEndOfAFileOverTheTotalsBudgetStillSaysHowManyLines() throws Exception {
        file("a.txt", lines(50));
        FileEngine e = engine(FileToolSettings.builder().readTotalsMaxBytes(10));
        assertThat(fails(e, "file_read", "path", "a.txt", "startLine", 99).getMessage()).contains("has 50 lines");
    }

    @Test
    void readClippedLineOfAFileOverTheTotalsBudgetPointsPastItself() throws Exception {
        file("a.txt", "y".repeat(50) + "\n");
        FileEngine e = engine(FileToolSettings.builder().readTotalsMaxBytes(0));
        Map<String, Object> r = run(e, "file_read", "path", "a.txt", "maxChars", 10);
        assertThat(r.get("totalsKnown")).isEqualTo(false);
        assertThat(r.get("nextStartLine")).isEqualTo(2);       // not known to be past the end: the next call says
        assertThat(fails(e, "file_read", "path", "a.txt", "startLine", 2).getMessage()).contains("has 1 lines");
    }

    /** ~3 MiB of mixed text: multi-byte chars, CRLF, invalid bytes, lines longer than a read chunk. */
    private static byte[] mixedText() {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.util.Random rnd = new java.util.Random(7);
        int line = 0;
        while (out.size() < 3 << 20) {
            line++;
            StringBuilder sb = new StringBuilder("L" + line + " ");
            int kind = rnd.nextInt(10);
            int len = rnd.nextInt(300) == 0 ? 70_000 + rnd.nextInt(1000) : rnd.nextInt(120);
            for (int i = 0; i < len; i++) {
                int c = rnd.nextInt(20);
                sb.append(c == 0 ? "é" : c == 1 ? "€" : c == 2 ? "\uD83D\uDE00" : c == 3 ? "\t" : "abcdefghij".charAt(c % 10));
            }
            byte[] b = sb.toString().getBytes(StandardCharsets.UTF_8);
            out.write(b, 0, b.length);
            if (kind == 1) {
                out.write(0xE2);                    // a truncated sequence
                out.write(0x82);
            } else if (kind == 2) {
                out.write(0xFF);                    // never valid
            }
            if (kind == 3) {
                out.write('\r');
            }
            out.write('\n');
        }
        return out.toByteArray();
    }

    @Test
    void readPagesAreTheSameWithAndWithoutTheLineStartCache() throws Exception {
        byte[] text = mixedText();
        Files.write(root.resolve("mixed.txt"), text);
        long lineCount = 0;
        for (byte b : text) {
            if (b == '\n') {
                lineCount++;
            }
        }
        FileEngine warm = new FileEngine(FileToolSettings.defaults());
        run(warm, "file_read", "path", "mixed.txt", "startLine", (int) lineCount);     // learns line starts
        int[] starts = {1, 2, 500, (int) lineCount / 3, (int) lineCount / 2, (int) lineCount / 2 + 1,
                (int) lineCount - 40, (int) lineCount};
        for (int start : starts) {
            for (int maxChars : new int[] {1, 8000, 100_000}) {
                Map<String, Object> cached = run(warm, "file_read", "path", "mixed.txt", "startLine", start,
                        "maxChars", maxChars);
                Map<String, Object> fresh = run(new FileEngine(FileToolSettings.defaults()), "file_read", "path",
                        "mixed.txt", "startLine", start, "maxChars", maxChars);
                assertThat(cached).as("startLine %d, maxChars %d", start, maxChars).isEqualTo(fresh);
            }
        }
        Map<String, Object> all = run(warm, "file_read", "path", "mixed.txt", "startLine", (int) lineCount / 2);
        assertThat(all.get("totalLines")).isEqualTo(lineCount);
        assertThat(all.get("totalChars")).isEqualTo((long) new String(text, StandardCharsets.UTF_8).length());
    }

    @Test
    void listStopsAtTheResultBudgetWithAHint() throws Exception {
        for (int i = 0; i < 100; i++) {
            file(String.format("n%03d", i) + "z".repeat(46), "");
        }
        FileEngine e = engine(FileToolSettings.builder().resultMaxBytes(1024));
        Map<String, Object> r = run(e, "file_list");
        assertThat((List<?>) r.get("entries")).hasSize(19);           // 53 bytes each with its comma, 2 for [ ]
        assertThat(r.get("count")).isEqualTo(100);
        assertThat(r.get("truncated")).isEqualTo(true);
        assertThat((String) r.get("hint")).contains("resultMaxBytes").contains("file_find");
    }

    @Test
    void findStopsAtTheResultBudgetWithAHint() throws Exception {
        for (int i = 0; i < 50; i++) {
            file(String.format("d/f%02d.txt", i), "");
        }
        FileEngine e = engine(FileToolSettings.builder().resultMaxBytes(1024));
        Map<String, Object> r = run(e, "file_find");
        List<Map<String, Object>> files = maps(r.get("files"));
        assertThat(files).isNotEmpty().hasSizeLessThan(50);
        assertThat(files.get(0).get("path")).isEqualTo("d/f00.txt");
        assertThat(JsonSize.of(files)).isLessThanOrEqualTo(1024);
        assertThat(r.get("totalMatches")).isEqualTo(50);
        assertThat(r.get("truncated")).isEqualTo(true);
        assertThat((String) r.get("hint")).contains("resultMaxBytes");
    }

    @Test
    void grepCountsContextLinesAgainstTheResultBudget() throws Exception {
        file("a.txt", numbered(40, 50));
        FileEngine e = engine(FileToolSettings.builder().resultMaxBytes(2048));
        Map<String, Object> plain = run(e, "file_grep", "pattern", "line");
        Map<String, Object> ctx = run(e, "file_grep", "pattern", "line", "contextBefore", 2, "contextAfter", 2);
        assertThat(maps(ctx.get("matches")).size()).isLessThan(maps(plain.get("matches")).size());
        assertThat(JsonSize.of(ctx.get("matches"))).isLessThanOrEqualTo(2048);
        assertThat(ctx.get("truncated")).isEqualTo(true);
        assertThat((String) ctx.get("hint")).contains("contextBefore/contextAfter (now 2/2)")
                .contains("'a.txt' line " + (maps(ctx.get("matches")).size() + 1));
    }

    @Test
    void grepBudgetKeepsTheSamePrefixWhateverOrderFilesAreSearchedIn() throws Exception {
        for (int i = 0; i < 60; i++) {
            file(String.format("d%d/f%02d.txt", i % 7, i), ("hit " + i + " " + "w".repeat(i * 3) + "\n").repeat(5));
        }
        List<Map<String, Object>> all = maps(run(engine(FileToolSettings.builder()), "file_grep", "pattern", "hit",
                "limit", 1000).get("matches"));
        assertThat(all).hasSize(300);
        FileEngine small = engine(FileToolSettings.builder().resultMaxBytes(4096).parallelism(4));
        for (int round = 0; round < 20; round++) {
            Map<String, Object> r = run(small, "file_grep", "pattern", "hit", "limit", 1000);
            List<Map<String, Object>> m = maps(r.get("matches"));
            assertThat(m).isNotEmpty().isEqualTo(all.subList(0, m.size()));
            assertThat(JsonSize.of(m)).isLessThanOrEqualTo(4096);
            assertThat(JsonSize.of(all.subList(0, m.size() + 1))).isGreaterThan(4096);
            assertThat(r.get("truncated")).isEqualTo(true);
        }
    }

    @Test
    void grepOfOneFileWithMoreMatchesThanTheLimitIsTruncated() throws Exception {
        file("a.txt", "hit\n".repeat(10));
        Map<String, Object> r = run("file_grep", "pattern", "hit", "limit", 5);
        assertThat((List<?>) r.get("matches")).hasSize(5);
        assertThat(r.get("truncated")).isEqualTo(true);
        assertThat((String) r.get("hint")).contains("limit");
    }

    @Test
    void headTailIsCutToTheResultBudget() throws Exception {
        file("log.txt", numbered(200, 50));
        FileEngine e = engine(FileToolSettings.builder().resultMaxBytes(2048));
        Map<String, Object> r = run(e, "file_head_tail", "path", "log.txt", "head", 100, "tail", 100);
        String head = (String) r.get("head");
        String tail = (String) r.get("tail");
        assertThat(JsonSize.of(head) + JsonSize.of(tail)).isLessThanOrEqualTo(2048);
        assertThat(head).startsWith("line 1 ");
        assertThat(tail).endsWith("line 200 " + "x".repeat(41) + "\n");
        assertThat(r.get("truncated")).isEqualTo(true);
        assertThat((long) r.get("omittedBytes")).isEqualTo(numbered(200, 50).length() - head.length() - tail.length());
        assertThat((String) r.get("hint")).contains("resultMaxBytes");
    }

    @Test
    void editOfAFileOverWholeFileMaxBytesIsRefusedAndLeavesItUnchanged() throws Exception {
        file("a.txt", "x".repeat(200) + "needle\n");
        FileEngine e = engine(FileToolSettings.builder().wholeFileMaxBytes(100));
        ToolException x = fails(e, "file_edit", "path", "a.txt", "oldText", "needle", "newText", "pin");
        assertThat(x.code()).isEqualTo(ErrorCode.SIZE_LIMIT);
        assertThat(x.getMessage()).contains("207 bytes").contains("at most 100").contains("wholeFileMaxBytes")
                .contains("exec_run");
        assertThat(Files.readString(root.resolve("a.txt"))).isEqualTo("x".repeat(200) + "needle\n");
    }

    @Test
    void editThatWouldGrowTheFileOverWholeFileMaxBytesIsRefused() throws Exception {
        file("a.txt", "needle\n");
        FileEngine e = engine(FileToolSettings.builder().wholeFileMaxBytes(100));
        ToolException x = fails(e, "file_edit", "path", "a.txt", "oldText", "needle", "newText", "n".repeat(100));
        assertThat(x.code()).isEqualTo(ErrorCode.SIZE_LIMIT);
        assertThat(x.getMessage()).contains("101 bytes").contains("wholeFileMaxBytes");
        assertThat(Files.readString(root.resolve("a.txt"))).isEqualTo("needle\n");
    }

    @Test
    void editOfMultiByteTextReplacesTheRightBytes() throws Exception {
        file("u.txt", "Grüße\nüber € 😀 x\nEnde\n");
        Map<String, Object> r = run("file_edit", "path", "u.txt", "oldText", "€ 😀", "newText", "EUR");
        assertThat(Files.readString(root.resolve("u.txt"))).isEqualTo("Grüße\nüber EUR x\nEnde\n");
        assertThat(r.get("line")).isEqualTo(2);
        assertThat(r.get("diff")).isEqualTo("@@ line 2 @@\n Grüße\n-über € 😀 x\n+über EUR x\n Ende\n");
    }

    @Test
    void writeOfContentOverWholeFileMaxBytesIsRefusedAndCreatesNothing() throws Exception {
        FileEngine e = engine(FileToolSettings.builder().wholeFileMaxBytes(100));
        ToolException x = fails(e, "file_write", "path", "big.txt", "content", "€".repeat(34));   // 102 bytes
        assertThat(x.code()).isEqualTo(ErrorCode.SIZE_LIMIT);
        assertThat(x.getMessage()).contains("102 bytes").contains("at most 100").contains("wholeFileMaxBytes");
        assertThat(Files.exists(root.resolve("big.txt"))).isFalse();
        assertThat(run(e, "file_write", "path", "ok.txt", "content", "€".repeat(33)).get("bytes")).isEqualTo(99L);
    }

    @Test
    void writeOfContentLongerThanAChunkIsEncodedExactly() throws Exception {
        StringBuilder sb = new StringBuilder();
        while (sb.length() < 200_000) {
            sb.append("abc é € ");
            if (sb.length() % 65_536 > 65_530) {
                sb.append("\uD83D\uDE00");    // pairs near the chunk boundaries
            }
            sb.append("\uD83D\uDE00").append('\uD800').append('\n');   // and a lone surrogate, written as '?'
        }
        String content = sb.toString();
        Map<String, Object> r = run("file_write", "path", "w.txt", "content", content);
        byte[] expected = content.getBytes(StandardCharsets.UTF_8);
        assertThat(Files.readAllBytes(root.resolve("w.txt"))).isEqualTo(expected);
        assertThat(r.get("bytes")).isEqualTo((long) expected.length);
        assertThat(Utf8.length(content)).isEqualTo(expected.length);
    }

    @Test
    void countWithACatastrophicPatternFailsTimeoutAtItsDeadline() throws Exception {
        file("evil.txt", ("a".repeat(30_000) + "!\n").repeat(3));
        FileEngine e = engine(FileToolSettings.builder().searchTimeout(Duration.ofMillis(300)));
        ToolException x = boundedFailure(() -> run(e, "file_count", "path", "evil.txt", "pattern", "(a+)+$"));
        assertThat(x.code()).isEqualTo(ErrorCode.TIMEOUT);
        assertThat(x.getMessage()).contains("file_count").contains("FileToolSettings.searchTimeout").contains("'evil.txt'");
    }

    @Test
    void findOnAnInterruptedThreadFailsCancelledAndKeepsTheInterrupt() throws Exception {
        for (int i = 0; i < 20; i++) {
            file("d" + i + "/a.txt", "");
        }
        Thread.currentThread().interrupt();
        try {
            ToolException x = fails("file_find");
            assertThat(x.code()).isEqualTo(ErrorCode.CANCELLED);
            assertThat(x.getMessage()).contains("file_find was cancelled");
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @FunctionalInterface
    private interface Call {
        Object run() throws Exception;
    }

    /** Runs a call that must fail, on another thread, waiting at most a minute. */
    private static ToolException boundedFailure(Call call) throws Exception {
        java.util.concurrent.ExecutorService ex = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            java.util.concurrent.Future<Object> f = ex.submit(call::run);
            try {
                f.get(60, java.util.concurrent.TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                if (e.getCause() instanceof ToolException t) {
                    return t;
                }
                throw e;
            } catch (java.util.concurrent.TimeoutException e) {
                f.cancel(true);
                throw new AssertionError("the call did not end within a minute", e);
            }
            throw new AssertionError("the call should have failed");
        } finally {
            ex.shutdownNow();
        }
    }

    // ------------------------------------------------------------------ helpers

    @Test
    void requiredLiteralIsConservative() {
        assertThat(TextScan.requiredLiteral("foo\\w+bar")).isEqualTo("foo");
        assertThat(TextScan.requiredLiterals("fo+ba[rz]_[0-9]+q")).containsExactly("fo", "ba", "_", "q");
        assertThat(TextScan.requiredLiteral("colou?r")).isEqualTo("colo");
        assertThat(TextScan.requiredLiteral("a|bcd")).isNull();
        assertThat(TextScan.requiredLiteral("(?i)hello")).isNull();
        assertThat(TextScan.requiredLiteral("[abc]+xyz")).isEqualTo("xyz");
        assertThat(TextScan.requiredLiteral("(foo)?barbaz")).isEqualTo("barbaz");
        assertThat(TextScan.requiredLiteral("x\\.y")).isEqualTo("x.y");
        assertThat(TextScan.isPlainLiteral("hello world")).isTrue();
        assertThat(TextScan.isPlainLiteral("a.b")).isFalse();
    }

    @Test
    void classifyFindsNulAndHighBytesAnywhere() {
        byte[] b = new byte[37];
        java.util.Arrays.fill(b, (byte) 'a');
        assertThat(TextScan.classify(b, 0, b.length)).isZero();
        b[33] = (byte) 0xC3;
        assertThat(TextScan.classify(b, 0, b.length)).isEqualTo(TextScan.NON_ASCII);
        b[9] = 0;
        assertThat(TextScan.classify(b, 0, b.length) & TextScan.BINARY).isEqualTo(TextScan.BINARY);
    }

    @Test
    void globSemantics() throws ToolException {
        Glob g = Glob.compile("src/**/*.{java,kt}");
        assertThat(g.matches("src/A.java", "A.java")).isTrue();
        assertThat(g.matches("src/a/b/C.kt", "C.kt")).isTrue();
        assertThat(g.matches("test/A.java", "A.java")).isFalse();
        Glob name = Glob.compile("*.md");
        assertThat(name.matches("docs/x/README.md", "README.md")).isTrue();
        assertThat(Glob.compile("[!a]?.txt").matches("b1.txt", "b1.txt")).isTrue();
        assertThatThrownBy(() -> Glob.compile("{a,b")).isInstanceOf(ToolException.class);
    }
}
