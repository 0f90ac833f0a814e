package org.vancetope.worktarget.core.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import java.io.IOException;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.vancetope.worktarget.core.FileToolSettings;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;

/**
 * The order of a collected walk (each directory's entries merged by name, a directory at its name plus
 * {@code '/'}) equals sorting the whole relative paths, also for names with characters that sort
 * before {@code '/'} ({@code '-'}, {@code '.'}, {@code '!'}, a space) and after it; and the globs
 * matched without a regex ({@code NAME}, {@code *TEXT}, {@code TEXT*}, behind {@code **}{@code /})
 * match exactly what the glob's regex matches.
 */
class WalkOrderTest {
    private FileSystem jimfs;

    @TempDir
    Path tmp;

    @BeforeEach
    void setUp() {
        jimfs = Jimfs.newFileSystem(Configuration.unix().toBuilder().setAttributeViews("basic", "posix").build());
    }

    @AfterEach
    void tearDown() throws IOException {
        jimfs.close();
    }

    static Stream<Arguments> disks() {
        return Stream.of(Arguments.of("jimfs"), Arguments.of("disk"));
    }

    private Path root(String where) throws IOException {
        return where.equals("jimfs") ? Files.createDirectories(jimfs.getPath("/ws"))
                : Files.createDirectories(tmp.resolve("ws")).toRealPath();
    }

    @SuppressWarnings("unchecked")
    private static List<String> found(FileEngine engine, ConfinedRoot gate, Object... kv) throws Exception {
        Map<String, Object> p = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            p.put((String) kv[i], kv[i + 1]);
        }
        List<String> out = new ArrayList<>();
        for (Map<String, Object> f : (List<Map<String, Object>>) engine.run("file_find", gate, p).toMap().get("files")) {
            out.add((String) f.get("path"));
        }
        return out;
    }

    @ParameterizedTest
    @MethodSource("disks")
    void filesComeInTheOrderOfTheirWholeRelativePaths(String where) throws Exception {
        Path ws = root(where);
        String[] parts = {"a", "a-b", "a.b", "a!", "a b", "a0", "aa", "A", "b", "_", "é", "z~"};
        Random rnd = new Random(7);
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            int depth = 1 + rnd.nextInt(4);
            StringBuilder rel = new StringBuilder();
            for (int d = 0; d < depth - 1; d++) {
                rel.append(parts[rnd.nextInt(parts.length)]).append("_d/");
            }
            rel.append(parts[rnd.nextInt(parts.length)]).append(i % 3 == 0 ? "" : ".txt");
            Path p = ws.resolve(rel.toString());
            if (Files.exists(p)) {
                continue;
            }
            Files.createDirectories(p.getParent());
            Files.writeString(p, "x");
            expected.add(rel.toString());
        }
        // directories whose names are prefixes of sibling files' names
        for (String rel : List.of("q/x", "q-r", "q.s", "q0/y", "q/x-y/z", "q/x.y")) {
            Path p = ws.resolve(rel);
            Files.createDirectories(p.getParent());
            Files.writeString(p, "x");
            expected.add(rel);
        }
        expected.sort(String::compareTo);
        FileEngine engine = new FileEngine(FileToolSettings.defaults());
        ConfinedRoot gate = ConfinedRoot.of(ws);
        assertThat(found(engine, gate, "limit", 2000)).containsExactlyElementsOf(expected);
        List<String> txt = expected.stream().filter(s -> s.endsWith(".txt")).toList();
        assertThat(found(engine, gate, "limit", 2000, "pathGlob", "*.txt")).containsExactlyElementsOf(txt);
        assertThat(found(engine, gate, "limit", 2000, "pathGlob", "**/*.txt")).containsExactlyElementsOf(txt);
        assertThat(found(engine, gate, "limit", 5)).containsExactlyElementsOf(expected.subList(0, 5));
    }

    /** The regex a glob stands for, written out independently of {@link Glob}. */
    private static boolean byRegex(String regex, String relative, String name, boolean nameOnly) {
        return Pattern.compile(regex).matcher(nameOnly ? name : relative).matches();
    }

    @Test
    void simpleGlobsMatchWhatTheirRegexMatches() throws Exception {
        String[][] globs = {
            {"*.java", "[^/]*\\.java", "name"},
            {"Makefile", "Makefile", "name"},
            {"test*", "test[^/]*", "name"},
            {"*", "[^/]*", "name"},
            {"a.b", "a\\.b", "name"},
            {"**/*.java", "(?:.*/)?[^/]*\\.java", "path"},
            {"**/**/pom.xml", "(?:.*/)?(?:.*/)?pom\\.xml", "path"},
            {"*(1)+$", "[^/]*\\(1\\)\\+\\$", "name"},
            {"*.{js,ts}", "[^/]*\\.(?:js|ts)", "name"},
        };
        String[] rels = {"A.java", "x/A.java", "x/y/A.java", "A.java.bak", "Ajava", "x.java/A.txt", ".java", "java",
            "Makefile", "x/Makefile", "Makefile.am", "test", "testA", "x/test_1", "atest", "a.b", "axb", "x/a.b",
            "pom.xml", "a/b/pom.xml", "pomxxml", "f(1)+$", "f(1)", "a.js", "b.ts", "c.jsx", "", "é.java"};
        for (String[] g : globs) {
            Glob glob = Glob.compile(g[0]);
            for (String rel : rels) {
                String name = rel.substring(rel.lastIndexOf('/') + 1);
                assertThat(glob.matches(rel, name)).as(g[0] + " on " + rel)
                        .isEqualTo(byRegex(g[1], rel, name, g[2].equals("name")));
            }
        }
    }
}
