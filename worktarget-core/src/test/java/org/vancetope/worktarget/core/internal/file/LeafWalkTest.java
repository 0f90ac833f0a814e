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
 * The walk's "leaf" optimisation (skipping names the glob rejects once a directory's link count says
 * every subdirectory was seen) finds what examining every entry finds: on the real disk (link counts),
 * on Jimfs (no {@code unix:nlink}: every entry examined), and with the link count missing, not a number
 * or below 2 (btrfs, overlayfs), which mean "unknown".
 */
class LeafWalkTest {
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
    private static List<String> found(Path ws, String glob) throws Exception {
        FileEngine engine = new FileEngine(FileToolSettings.defaults());
        ConfinedRoot gate = ConfinedRoot.of(ws);
        Map<String, Object> p = new HashMap<>();
        p.put("pathGlob", glob);
        p.put("includeGenerated", true);
        p.put("includeIgnored", true);
        List<String> out = new ArrayList<>();
        for (Map<String, Object> f : (List<Map<String, Object>>) engine.run("file_find", gate, p).toMap().get("files")) {
            out.add((String) f.get("path"));
        }
        return out;
    }

    @ParameterizedTest
    @MethodSource("disks")
    void findsMatchingFilesBesideDirectoriesThatLookLikeFilesAndFilesThatLookLikeDirectories(String where)
            throws Exception {
        Path ws = root(where);
        Path leaf = Files.createDirectories(ws.resolve("a/leaf"));
        for (String n : List.of("x.java", "y.java", "notes.txt", "b.md", "c.md", "Makefile", "README")) {
            Files.writeString(leaf.resolve(n), n);
        }
        // a directory with a dotted name (examined last), one with the glob's suffix, and an undotted file
        Files.createDirectories(ws.resolve("a/sub.d/deep"));
        Files.writeString(ws.resolve("a/sub.d/deep/z.java"), "z");
        Files.createDirectories(ws.resolve("a/dir.java"));
        Files.writeString(ws.resolve("a/dir.java/w.java"), "w");
        Files.writeString(ws.resolve("a/one.txt"), "1");
        Files.writeString(ws.resolve("a/two.txt"), "2");
        Files.writeString(ws.resolve("a/LICENSE"), "l");
        Files.writeString(ws.resolve("a/v.java"), "v");
        Files.createSymbolicLink(ws.resolve("a/link.java"), ws.resolve("a/v.java"));

        assertThat(found(ws, "*.java")).containsExactly("a/dir.java/w.java", "a/leaf/x.java", "a/leaf/y.java",
                "a/sub.d/deep/z.java", "a/v.java");
        assertThat(found(ws, "*.md")).containsExactly("a/leaf/b.md", "a/leaf/c.md");
        assertThat(found(ws, "README")).containsExactly("a/leaf/README");
    }

    @Test
    void aLinkCountOfTwoOrMoreCountsTheSubdirectories() {
        assertThat(TreeWalker.subdirectories(2)).isZero();
        assertThat(TreeWalker.subdirectories(7)).isEqualTo(5);
    }

    @Test
    void aMissingLinkCountMeansUnknown() {
        assertThat(TreeWalker.subdirectories(null)).isEqualTo(-1);
    }

    @Test
    void aLinkCountBelowTwoMeansUnknown() {
        assertThat(TreeWalker.subdirectories(1)).isEqualTo(-1);
        assertThat(TreeWalker.subdirectories(0)).isEqualTo(-1);
    }

    @Test
    void aLinkCountThatIsNotAnIntegerMeansUnknown() {
        assertThat(TreeWalker.subdirectories(5L)).isEqualTo(-1);
        assertThat(TreeWalker.subdirectories("5")).isEqualTo(-1);
    }

    @SuppressWarnings("unchecked")
    private static List<String> listed(Path ws, String path, List<String> exclude) throws Exception {
        Map<String, Object> p = new HashMap<>();
        p.put("path", path);
        if (!exclude.isEmpty()) {
            p.put("exclude", exclude);
        }
        return (List<String>) new FileEngine(FileToolSettings.defaults()).run("file_list", ConfinedRoot.of(ws), p).toMap()
                .get("entries");
    }

    @ParameterizedTest
    @MethodSource("disks")
    void fileListMarksEveryDirectoryWhateverItsNameAndNoFileOrLink(String where) throws Exception {
        Path ws = root(where);
        Path d = Files.createDirectories(ws.resolve("d"));
        for (String dir : List.of("sub.d", "noext", "v1.2", "skipped.dir")) {
            Files.createDirectories(d.resolve(dir));
        }
        for (String file : List.of("a.txt", "b.txt", "c.md", "Makefile", "README")) {
            Files.writeString(d.resolve(file), file);
        }
        Files.createSymbolicLink(d.resolve("link.d"), d.resolve("sub.d"));
        Files.createSymbolicLink(d.resolve("linkdir"), d.resolve("noext"));

        assertThat(listed(ws, "d", List.of())).containsExactly("Makefile", "README", "a.txt", "b.txt", "c.md", "link.d",
                "linkdir", "noext/", "skipped.dir/", "sub.d/", "v1.2/");
        assertThat(listed(ws, "d", List.of("skipped.dir"))).as("an excluded directory still counts in the link count")
                .containsExactly("Makefile", "README", "a.txt", "b.txt", "c.md", "link.d", "linkdir", "noext/", "sub.d/",
                        "v1.2/");
    }

    @ParameterizedTest
    @MethodSource("disks")
    void fileListOfADirectoryWithoutSubdirectoriesMarksNothing(String where) throws Exception {
        Path ws = root(where);
        Path d = Files.createDirectories(ws.resolve("flat"));
        for (String file : List.of("x.java", "y.java", "Makefile")) {
            Files.writeString(d.resolve(file), file);
        }
        assertThat(listed(ws, "flat", List.of())).containsExactly("Makefile", "x.java", "y.java");
    }
}
