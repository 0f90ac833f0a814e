package org.vancetope.worktarget.core.internal.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.FileToolSettings;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * A path that does not exist is refused with what the caller probably meant: where the path stops
 * existing, and the names of that directory that differ from the missing one only in how accents are
 * encoded, in case, in spaces at the ends, in the extension, or by a typo or two. Never a name from
 * outside the root or of the library's own files.
 */
class NearNamesTest {
    private static final String NOT_FOUND = " does not exist. Call file_list or file_find to see what is there. ";

    @TempDir
    Path tmp;

    private Path ws;
    private ConfinedRoot gate;
    private final FileEngine engine = new FileEngine(FileToolSettings.defaults());

    @BeforeEach
    void setUp() throws IOException {
        ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        gate = ConfinedRoot.of(ws);
    }

    private void write(String path) throws IOException {
        Path p = ws.resolve(path);
        Files.createDirectories(p.getParent());
        Files.writeString(p, "text\n");
    }

    private ToolException fails(String op, Object... kv) {
        Map<String, Object> p = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            p.put((String) kv[i], kv[i + 1]);
        }
        try {
            engine.run(op, gate, p);
        } catch (ToolException e) {
            return e;
        }
        throw new AssertionError(op + " should have failed");
    }

    private String readRefusal(String path) {
        ToolException e = fails("file_read", "path", path);
        assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
        return e.getMessage();
    }

    @Test
    void aNameInAnotherCaseIsSuggested() throws IOException {
        write("README.md");
        assertThat(readRefusal("readme.md")).isEqualTo("File 'readme.md'" + NOT_FOUND + "Did you mean 'README.md'?");
    }

    @Test
    void aNameWithItsAccentsDecomposedIsSuggestedWithItsExactJsonSpelling() throws IOException {
        String decomposed = "e\u0301te\u0301.txt";
        write(decomposed);
        String composed = "\u00e9t\u00e9.txt";
        assumeFalse(Files.exists(ws.resolve(composed)), "this file system normalizes names itself");
        assertThat(readRefusal(composed)).isEqualTo("File '" + composed + "'" + NOT_FOUND + "Did you mean '" + decomposed
                + "' (the same letters with their accents encoded otherwise; to name it, write it in the JSON arguments "
                + "exactly as \"e\\u0301te\\u0301.txt\")?");
    }

    @Test
    void aNameWithSpacesAtItsEndsIsSuggestedAndSaidSo() throws IOException {
        write("notes.txt ");
        assertThat(readRefusal("notes.txt")).endsWith("Did you mean 'notes.txt ' (with spaces at the ends of its name)?");
    }

    @Test
    void theSameNameWithAnotherExtensionIsSuggested() throws IOException {
        write("App.ts");
        write("README.md");
        assertThat(readRefusal("App.js")).endsWith("Did you mean 'App.ts'?");
        assertThat(readRefusal("README")).endsWith("Did you mean 'README.md'?");
    }

    @Test
    void aTypoOrASwapOfNeighboursIsSuggested() throws IOException {
        write("src/main/java/App.java");
        assertThat(readRefusal("src/main/java/Ap.java")).endsWith("Did you mean 'src/main/java/App.java'?");
        assertThat(readRefusal("src/main/java/Apl.jaav")).endsWith("Did you mean 'src/main/java/App.java'?");
    }

    @Test
    void aMissingDirectoryOnThePathIsNamedWithItsExistingParentAndTheNearOne() throws IOException {
        write("src/main/java/App.java");
        assertThat(readRefusal("scr/main/java/App.java")).endsWith(
                "There is no 'scr' in the work directory; did you mean 'src'?");
        assertThat(readRefusal("src/mian/java/App.java")).endsWith(
                "There is no 'src/mian' (its parent 'src' exists); did you mean 'src/main'?");
        assertThat(readRefusal("src/main/kotlin/App.kt")).endsWith(
                "There is no 'src/main/kotlin' (its parent 'src/main' exists).");
    }

    @Test
    void aFileWhereThePathNeedsADirectoryIsNamed() throws IOException {
        write("README.md");
        assertThat(readRefusal("README.md/x.txt")).endsWith("'README.md' is a file, not a directory.");
    }

    @Test
    void nothingIsAddedWhenNothingNearIsThere() throws IOException {
        write("alpha.txt");
        assertThat(readRefusal("omega.log")).isEqualTo("File 'omega.log' does not exist. Call file_list or file_find to see "
                + "what is there.");
        write("ab");
        assertThat(readRefusal("ac")).as("two letters leave no room for a typo").endsWith("see what is there.");
    }

    @Test
    void atMostThreeAreSuggestedTheClosestFirst() throws IOException {
        for (String name : new String[] {"data.json", "Data.txt", "dat.txt", "data.csv", "data.xml", "date.txt"}) {
            write(name);
        }
        assertThat(readRefusal("data.txt")).endsWith("Did you mean 'Data.txt', 'data.csv' or 'data.json'?");
    }

    @Test
    void aLongSuggestionIsQuotedWholeSoThatItCanBeCopied() throws IOException {
        String dir = "d".repeat(100);
        String name = "n".repeat(200) + ".txt";
        write(dir + "/" + name);
        assertThat(readRefusal(dir + "/" + "n".repeat(200) + ".txy")).endsWith("Did you mean '" + dir + "/" + name + "'?");
    }

    @Test
    void aNameTheToolsCannotNameIsNeverSuggested() throws IOException {
        write("notes\n.txt");
        write("d\u00e9j\u00e0.txt");
        assertThat(readRefusal("notes.txt")).isEqualTo("File 'notes.txt'" + NOT_FOUND.stripTrailing());
        assertThat(NearNames.rank("d\u00e9ja.txt", List.of("d\uFFFDj\u00e0.txt", "d\u00e9j\u00e0.txt")))
                .extracting(NearNames.Candidate::name).containsExactly("d\u00e9j\u00e0.txt");
    }

    @Test
    void theLibrarysOwnEntriesAreNeverSuggested() throws IOException {
        Files.createDirectories(ws.resolve(ConfinedRoot.INTERNAL_DIR).resolve("exec/scope-1"));
        Files.writeString(ws.resolve(ConfinedRoot.INTERNAL_DIR).resolve("exec/scope-1/j1.stdout"), "out");
        assertThat(readRefusal(".worktargt/x")).endsWith("There is no '.worktargt' in the work directory.");
        assertThat(NearNames.hint(gate, ".worktarget/exec/scope-2/j1.stdout")).isNull();
    }

    @Test
    void namesBeyondALinkThatLeavesTheRootAreNeverShown() throws IOException {
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), "TOP SECRET");
        try {
            Files.createSymbolicLink(ws.resolve("out"), outside);
        } catch (UnsupportedOperationException | IOException e) {
            assumeTrue(false, "no symbolic links here: " + e);
        }
        ToolException original = new ToolException(ErrorCode.NOT_FOUND, "File 'out/secre.txt' does not exist.");
        assertThat(NearNames.explain(original, gate, "out/secre.txt")).isSameAs(original);
    }

    @Test
    void otherRefusalsAndPathsThatExistAreLeftAsTheyAre() throws IOException {
        write("README.md");
        ToolException edit = fails("file_edit", "path", "README.md", "oldText", "absent", "newText", "x");
        assertThat(edit.code()).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(edit.getMessage()).doesNotContain("Did you mean");
        ToolException invalid = new ToolException(ErrorCode.INVALID_PARAMS, "Bad 'readme.md'.");
        assertThat(NearNames.explain(invalid, gate, "readme.md")).isSameAs(invalid);
    }

    @Test
    void theOtherToolsThatNameAPathSayTheSame() throws IOException {
        write("src/main/App.java");
        assertThat(fails("file_list", "path", "src/mian").getMessage()).endsWith("Did you mean 'src/main'?");
        assertThat(fails("file_grep", "pattern", "x", "path", "scr").getMessage()).endsWith("Did you mean 'src'?");
        assertThat(fails("file_stat", "path", "src/main/app.java").getMessage())
                .endsWith("Did you mean 'src/main/App.java'?");
        assertThat(fails("file_move", "from", "src/main/Ap.java", "to", "b.java").getMessage())
                .endsWith("Did you mean 'src/main/App.java'?");
        assertThat(fails("file_move", "from", "src/main/App.java", "to", "srcc/App.java").getMessage())
                .endsWith("There is no 'srcc' in the work directory; did you mean 'src'?");
        assertThat(ws.resolve("src/main/App.java")).exists();
    }

    @Test
    void eachFileOfAMultiReadGetsItsOwnHint() throws Exception {
        write("README.md");
        write("src/main/App.java");
        Map<String, Object> p = new HashMap<>();
        p.put("paths", List.of("readme.md", "src/mian/App.java"));
        String result = engine.run("file_read", gate, p).toMap().toString();
        assertThat(result).contains("Did you mean 'README.md'?")
                .contains("There is no 'src/mian' (its parent 'src' exists); did you mean 'src/main'?");
    }

    private Map<String, Object> ok(String op, Object... kv) throws ToolException {
        Map<String, Object> p = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            p.put((String) kv[i], kv[i + 1]);
        }
        return engine.run(op, gate, p).toMap();
    }

    @Test
    void writingIntoANewDirectoryATypoAwayFromAnExistingOneSaysSo() throws Exception {
        write("src/main/App.java");
        Map<String, Object> r = ok("file_write", "path", "scr/main/Util.java", "content", "x");
        assertThat(r.get("hint")).isEqualTo("Created the new directory 'scr' for it, beside the existing 'src'. If you "
                + "meant 'src', move what this call created there with file_move and delete 'scr' with file_delete.");
        assertThat(ws.resolve("scr/main/Util.java")).exists();
        assertThat(ok("file_mkdir", "path", "src/mian/java").get("hint")).isEqualTo("Created the new directory "
                + "'src/mian' for it, beside the existing 'src/main'. If you meant 'src/main', move what this call "
                + "created there with file_move and delete 'src/mian' with file_delete.");
    }

    @Test
    void aMoveThatCreatesADirectoryATypoAwayFromAnExistingOneSaysSo() throws Exception {
        write("src/main/App.java");
        write("Util.java");
        Map<String, Object> r = ok("file_move", "from", "Util.java", "to", "scr/Util.java", "createParents", true);
        assertThat(r.get("hint")).isEqualTo("Created the new directory 'scr' for it, beside the existing 'src'. If you "
                + "meant 'src', move what this call created there with file_move and delete 'scr' with file_delete.");
        assertThat(ws.resolve("scr/Util.java")).exists();
        assertThat(ok("file_move", "from", "scr/Util.java", "to", "src/Util.java")).doesNotContainKey("hint");
    }

    @Test
    void creatingADirectoryWhoseNameDiffersOnlyInCaseFromAnExistingOneSaysSo() throws Exception {
        write("Docs/guide.md");
        Map<String, Object> r = ok("file_mkdir", "path", "docs");
        assumeFalse(Files.exists(ws.resolve("Docs/guide.md")) && Files.exists(ws.resolve("docs/guide.md")),
                "this file system ignores case");
        assertThat(r.get("created")).isEqualTo(true);
        assertThat((String) r.get("hint")).isEqualTo("Created 'docs' beside the existing 'Docs', whose name differs "
                + "only in case (where names ignore case, as on macOS and Windows, the two would be one). If you meant "
                + "'Docs', use that path and delete 'docs' with file_delete.");
        assertThat(ok("file_write", "path", "DOCS/x.md", "content", "x").get("hint")).asString()
                .startsWith("Created the new directory 'DOCS' for it, beside the existing 'Docs', whose name differs "
                        + "only in case");
        assertThat(ok("file_write", "path", "Docs/Guide.md", "content", "x")).as("a new file in an existing directory "
                + "is not looked at: that would list the directory on every new file").doesNotContainKey("hint");
    }

    @Test
    void writesThatCreateNothingNearAnotherNameSayNothing() throws Exception {
        write("src/main/App.java");
        write("App.js");
        assertThat(ok("file_write", "path", "src/main/App.java", "content", "y")).doesNotContainKey("hint");
        assertThat(ok("file_write", "path", "src/main/Apq.java", "content", "y")).as("a typo of a file name may be meant")
                .doesNotContainKey("hint");
        assertThat(ok("file_write", "path", "App.ts", "content", "y")).as("another extension").doesNotContainKey("hint");
        assertThat(ok("file_write", "path", "docs/guide.md", "content", "y")).doesNotContainKey("hint");
        assertThat(ok("file_mkdir", "path", "src/main")).doesNotContainKey("hint");
        assertThat(ok("file_mkdir", "path", "Src")).as("a directory's own name differing in case")
                .containsEntry("created", true).containsKey("hint");
    }

    @Test
    void editDistanceCountsASwapOfNeighboursAsOneAndStopsPastItsBound() {
        assertThat(NearNames.distance("src", "scr", 1)).isEqualTo(1);
        assertThat(NearNames.distance("main", "mian", 1)).isEqualTo(1);
        assertThat(NearNames.distance("app.java", "app.java", 2)).isZero();
        assertThat(NearNames.distance("kitten", "sitting", 3)).isEqualTo(3);
        assertThat(NearNames.distance("kitten", "sitting", 2)).isEqualTo(3);
        assertThat(NearNames.distance("a", "abcdef", 2)).isEqualTo(3);
    }

    @Test
    void theBandedDistanceEqualsTheWholeTableWithinItsBound() {
        java.util.Random rnd = new java.util.Random(11);
        for (int n = 0; n < 20_000; n++) {
            String a = randomName(rnd);
            String b = rnd.nextBoolean() ? randomName(rnd) : mutate(a, rnd);
            int max = rnd.nextInt(4);
            int full = fullDistance(a, b);
            assertThat(NearNames.distance(a, b, max)).as(a + " / " + b + " within " + max)
                    .isEqualTo(Math.min(full, max + 1));
        }
    }

    @Test
    void aLongNameCostsItsLengthTimesTheBandNotItsSquare() {
        String a = "x".repeat(100_000);
        String b = "x".repeat(99_999) + "y";
        assertThat(NearNames.distance(a, b, 2)).isEqualTo(1);
        assertThat(NearNames.distance(a + "zzz", b + "qqq", 2)).isEqualTo(3);
    }

    private static String randomName(java.util.Random rnd) {
        StringBuilder sb = new StringBuilder();
        for (int i = rnd.nextInt(9); i > 0; i--) {
            sb.append("abc".charAt(rnd.nextInt(3)));
        }
        return sb.toString();
    }

    private static String mutate(String a, java.util.Random rnd) {
        StringBuilder sb = new StringBuilder(a);
        for (int k = rnd.nextInt(4); k > 0; k--) {
            int op = rnd.nextInt(4);
            int at = sb.length() == 0 ? 0 : rnd.nextInt(sb.length());
            if (op == 0 || sb.length() < 2) {
                sb.insert(at, "abc".charAt(rnd.nextInt(3)));
            } else if (op == 1) {
                sb.deleteCharAt(at);
            } else if (op == 2) {
                sb.setCharAt(at, "abc".charAt(rnd.nextInt(3)));
            } else if (at + 1 < sb.length()) {
                char c = sb.charAt(at);
                sb.setCharAt(at, sb.charAt(at + 1));
                sb.setCharAt(at + 1, c);
            }
        }
        return sb.toString();
    }

    /** The textbook table of the same distance (optimal string alignment), every cell computed. */
    private static int fullDistance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }

    @Test
    void theJsonSpellingEscapesEverythingButPrintableAscii() {
        assertThat(NearNames.jsonString("e\u0301 \"q\"\\.txt")).isEqualTo("\"e\\u0301 \\\"q\\\"\\\\.txt\"");
    }
}
