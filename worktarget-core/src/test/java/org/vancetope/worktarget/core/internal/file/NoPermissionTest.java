package org.vancetope.worktarget.core.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.FileToolSettings;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.testfixtures.ChildMain;

/**
 * What the file tools do with files and directories the server's user may not read or write. A file that is
 * read-only for it is not replaced by file_write or file_edit (which write a new file and rename it over the
 * old one, which the directory would allow). A named
 * file that cannot be read is an error that says so (as for {@code file_read}), not "no match" or an internal
 * error; in a walk, what could not be read is counted in the hint instead of left out in silence; one
 * directory that cannot be entered does not fail a whole {@code file_tree}. Permissions bind only a process
 * without root's override, so the tools run in a child JVM in a user namespace ({@code unshare --user}) where
 * it is the files' owner and nothing more.
 */
@EnabledOnOs(OS.LINUX)
class NoPermissionTest {
    @TempDir
    Path tmp;
    private Path root;

    /** The child: runs each call {@code TOOL path=P [pattern=X]} in root {@code args[0]} and prints the outcome. */
    public static void main(String[] args) throws IOException {
        FileEngine engine = new FileEngine(FileToolSettings.defaults());
        ConfinedRoot gate = ConfinedRoot.of(Path.of(args[0]));
        for (int i = 1; i < args.length; i++) {
            String[] words = args[i].split(" ");
            Map<String, Object> params = new LinkedHashMap<>();
            for (int w = 1; w < words.length; w++) {
                String[] kv = words[w].split("=", 2);
                params.put(kv[0], kv[1]);
            }
            String out;
            try {
                out = "ok " + engine.run(words[0], gate, params).toMap();
            } catch (ToolException e) {
                out = e.code().wire() + " " + e.getMessage();
            }
            System.out.println(out.replace('\n', ' '));
        }
        System.exit(0);     // the search lanes need not wind down
    }

    /** Runs the calls as the files' owner without root's override; one line of outcome per call. */
    private List<String> runAsOwnerOnly(String... calls) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of(root.toString()));
        args.addAll(List.of(calls));
        String out = ChildMain.runAsOwnerOnly(NoPermissionTest.class, args.toArray(String[]::new));
        List<String> lines = out.lines().filter(l -> !l.startsWith("SLF4J") && !l.contains("[main]")).toList();
        assertThat(lines).as(out).hasSize(calls.length);
        return lines;
    }

    @BeforeEach
    void tree() throws Exception {
        Assumptions.assumeTrue(ChildMain.ownerOnlyWorks(), "needs 'unshare --user' (util-linux, user namespaces) to "
                + "drop root's override of file permissions");
        root = Files.createDirectories(tmp.resolve("root"));
        Files.writeString(root.resolve("open.txt"), "secret here\n");
        Files.writeString(root.resolve("noread.txt"), "secret there\n");
        mode(root.resolve("noread.txt"), "---------");
        Files.createDirectories(root.resolve("closed"));
        Files.writeString(root.resolve("closed/inner.txt"), "secret inside\n");
        mode(root.resolve("closed"), "---------");
        Files.writeString(root.resolve("ro.txt"), "keep\n");
        mode(root.resolve("ro.txt"), "r--r--r--");
        Files.createDirectories(root.resolve("listonly/sub"));
        Files.writeString(root.resolve("listonly/f.txt"), "secret listed\n");
        mode(root.resolve("listonly"), "r--------");
    }

    private static void mode(Path p, String perms) throws IOException {
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(perms));
    }

    @Test
    void aReadOnlyFileIsNeitherRewrittenNorEdited() throws Exception {
        List<String> out = runAsOwnerOnly("file_write path=ro.txt content=changed",
                "file_edit path=ro.txt oldText=keep newText=changed", "file_write path=open.txt content=changed");

        assertThat(out.get(0)).isEqualTo("invalid_params File 'ro.txt' is read-only for this user (mode r--r--r--); "
                + "nothing was written. If it is meant to change, make it writable first with exec_run (chmod u+w FILE).");
        assertThat(out.get(1)).startsWith("invalid_params File 'ro.txt' is read-only for this user");
        assertThat(out.get(2)).startsWith("ok ");
        assertThat(Files.readString(root.resolve("ro.txt"))).isEqualTo("keep\n");
    }

    @Test
    void aNamedFileThatCannotBeReadIsPermissionDeniedForGrepAndCount() throws Exception {
        List<String> out = runAsOwnerOnly("file_grep path=noread.txt pattern=secret", "file_count path=noread.txt");

        assertThat(out.get(0)).startsWith("invalid_params Permission denied: cannot read 'noread.txt'.")
                .contains("file_stat", "chmod");
        assertThat(out.get(1)).startsWith("invalid_params Permission denied: cannot read 'noread.txt'.");
    }

    @Test
    void aSearchSaysWhatItCouldNotReadBesideWhatItFound() throws Exception {
        List<String> out = runAsOwnerOnly("file_grep path=. pattern=secret");

        assertThat(out.get(0)).startsWith("ok ").contains("open.txt")
                .contains("1 file could not be read", "'noread.txt'")
                .contains("2 directories could not be listed or searched");
    }

    @Test
    void findAndCountSayWhatTheyCouldNotReadOrList() throws Exception {
        List<String> out = runAsOwnerOnly("file_find path=. pathGlob=*.txt", "file_count path=.");

        assertThat(out.get(0)).startsWith("ok ").contains("open.txt", "noread.txt")
                .contains("2 directories could not be listed or searched");
        assertThat(out.get(1)).startsWith("ok ").contains("1 file could not be read")
                .contains("2 directories could not be listed or searched");
    }

    @Test
    void aTreeShowsWhatItCanAndCountsTheDirectoriesItCouldNotEnter() throws Exception {
        List<String> out = runAsOwnerOnly("file_tree path=.");

        assertThat(out.get(0)).startsWith("ok ").contains("open.txt", "closed/", "listonly/")
                .contains("2 directories could not be entered or examined");
    }
}
