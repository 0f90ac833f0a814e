package org.vancetope.worktarget.core.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FootTargetResolverTest {
    private static final TransferScope SCOPE = new TransferScope("acme", "proj-research");
    private FileSystem fs;
    private FootTargetResolver foot;
    private Path project;

    @BeforeEach
    void setUp() throws Exception {
        fs = Jimfs.newFileSystem(Configuration.unix());
        foot = FootTargetResolver.at(fs.getPath("/home/u/.vancetope/foot"));
        project = Files.createDirectories(fs.getPath("/home/u/.vancetope/foot/acme/proj-research"));
    }

    @AfterEach
    void tearDown() throws Exception {
        fs.close();
    }

    private TargetResolution write(String path) {
        return foot.resolve(SCOPE, null, path, TargetResolver.Access.WRITE);
    }

    @Test
    void defaultRootIsDotVancetopeFootInTheHome() {
        FootTargetResolver r = FootTargetResolver.fromEnvironment(fs, name -> null, "/home/u");
        assertThat(r.footRoot()).isEqualTo(fs.getPath("/home/u/.vancetope/foot"));
    }

    @Test
    void environmentVariableOverridesTheRoot() {
        Map<String, String> env = Map.of(FootTargetResolver.ENV_ROOT, "/data/foot");
        FootTargetResolver r = FootTargetResolver.fromEnvironment(fs, env::get, "/home/u");
        assertThat(r.footRoot()).isEqualTo(fs.getPath("/data/foot"));
    }

    @Test
    void blankEnvironmentVariableFallsBackToTheDefault() {
        FootTargetResolver r = FootTargetResolver.fromEnvironment(fs, n -> "  ", "/home/u");
        assertThat(r.footRoot()).isEqualTo(fs.getPath("/home/u/.vancetope/foot"));
    }

    @Test
    void specExampleLandsUnderTenantAndProject() {
        assertThat(write("reports/2026-q2.pdf").path())
                .isEqualTo(fs.getPath("/home/u/.vancetope/foot/acme/proj-research/reports/2026-q2.pdf"));
    }

    @Test
    void jailbreakDotDotIsRefused() {
        assertThat(write("../proj-other/x").error()).isEqualTo(FootTargetResolver.ESCAPE);
    }

    @Test
    void jailbreakDotDotThatReturnsInsideIsAccepted() {
        assertThat(write("a/../b.txt").path()).isEqualTo(project.resolve("b.txt"));
    }

    @Test
    void jailbreakTheProjectDirectoryItselfIsRefused() {
        assertThat(write(".").error()).isEqualTo(FootTargetResolver.ESCAPE);
        assertThat(write("a/..").error()).isEqualTo(FootTargetResolver.ESCAPE);
    }

    @Test
    void jailbreakAbsolutePathIsRefused() {
        assertThat(write("/etc/passwd").error()).isEqualTo(FootTargetResolver.ESCAPE);
    }

    @Test
    void jailbreakControlCharacterIsRefused() {
        assertThat(write("a\u0000b").ok()).isFalse();
        assertThat(write("a\nb").ok()).isFalse();
    }

    @Test
    void jailbreakUnsafeTenantIsRefused() {
        assertThat(foot.resolve(new TransferScope("..", "proj-research"), null, "a", TargetResolver.Access.WRITE).error())
                .isEqualTo(FootTargetResolver.ESCAPE);
        assertThat(foot.resolve(new TransferScope("acme", "a/b"), null, "a", TargetResolver.Access.WRITE).error())
                .isEqualTo(FootTargetResolver.ESCAPE);
    }

    @Test
    void jailbreakSymlinkedParentIsRefused() throws Exception {
        Files.createSymbolicLink(project.resolve("out"), Files.createDirectories(fs.getPath("/tmp/out")));
        assertThat(write("out/x.txt").error()).isEqualTo(FootTargetResolver.ESCAPE);
    }

    @Test
    void jailbreakSymlinkedProjectDirectoryIsRefused() throws Exception {
        Path elsewhere = Files.createDirectories(fs.getPath("/elsewhere"));
        Files.createSymbolicLink(fs.getPath("/home/u/.vancetope/foot/acme/linked"), elsewhere);
        assertThat(foot.resolve(new TransferScope("acme", "linked"), null, "x.txt", TargetResolver.Access.WRITE).error())
                .isEqualTo(FootTargetResolver.ESCAPE);
    }

    @Test
    void readRequiresAnExistingRegularFile() throws Exception {
        assertThat(foot.resolve(SCOPE, null, "nope.txt", TargetResolver.Access.READ).error())
                .isEqualTo("file not found: nope.txt");
        Files.createDirectories(project.resolve("d"));
        assertThat(foot.resolve(SCOPE, null, "d", TargetResolver.Access.READ).error()).startsWith("not a regular file");
        Files.write(project.resolve("f.txt"), new byte[1]);
        assertThat(foot.resolve(SCOPE, null, "f.txt", TargetResolver.Access.READ).path()).isEqualTo(project.resolve("f.txt"));
    }

    @Test
    void jailbreakOnWindowsDriveAndBackslashTraversalAreRefused() throws Exception {
        try (FileSystem win = Jimfs.newFileSystem(Configuration.windows())) {
            FootTargetResolver r = FootTargetResolver.at(win.getPath("C:\\Users\\u\\.vancetope\\foot"));
            Files.createDirectories(win.getPath("C:\\Users\\u\\.vancetope\\foot\\acme\\proj-research"));
            assertThat(r.resolve(SCOPE, null, "C:\\Windows\\x.dll", TargetResolver.Access.WRITE).error())
                    .isEqualTo(FootTargetResolver.ESCAPE);
            assertThat(r.resolve(SCOPE, null, "\\Windows\\x.dll", TargetResolver.Access.WRITE).ok()).isFalse();
            assertThat(r.resolve(SCOPE, null, "..\\..\\x.txt", TargetResolver.Access.WRITE).error())
                    .isEqualTo(FootTargetResolver.ESCAPE);
            assertThat(r.resolve(SCOPE, null, "docs\\a.txt", TargetResolver.Access.WRITE).path())
                    .isEqualTo(win.getPath("C:\\Users\\u\\.vancetope\\foot\\acme\\proj-research\\docs\\a.txt"));
        }
    }

    @Test
    void writeBelowARegularFileIsRefused() throws Exception {
        Files.write(project.resolve("file"), new byte[1]);
        assertThat(write("file/child").error()).contains("is not a directory");
    }
}
