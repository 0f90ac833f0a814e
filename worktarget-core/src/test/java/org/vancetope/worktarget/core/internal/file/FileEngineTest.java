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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.FileToolSettings;
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
        return engine.run(op, gate, p);
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
    void editNotFoundHintsAtCrlf() throws Exception {
        file("a.txt", "one\r\ntwo\r\n");
        ToolException e = fails("file_edit", "path", "a.txt", "oldText", "one\ntwo", "newText", "x");
        assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(e.getMessage()).contains("CRLF");
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
    void grepAnchorsApplyPerLine() throws Exception {
        file("a.txt", "foo\nbar foo\nfoo bar\n");
        Map<String, Object> r = run("file_grep", "pattern", "foo$");
        assertThat(((List<?>) r.get("matches"))).hasSize(2);
        r = run("file_grep", "pattern", "^foo");
        assertThat(((List<?>) r.get("matches"))).hasSize(2);
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
