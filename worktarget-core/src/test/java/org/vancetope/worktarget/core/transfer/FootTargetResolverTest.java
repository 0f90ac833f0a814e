package org.vancetope.worktarget.core.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The separate transfer root: one directory per tenant and project; paths inside are the gate's business. */
class FootTargetResolverTest {
    private static final TransferScope SCOPE = new TransferScope("acme", "proj-research");
    private FileSystem fs;
    private FootTargetResolver foot;

    @BeforeEach
    void setUp() {
        fs = Jimfs.newFileSystem(Configuration.unix());
        foot = FootTargetResolver.at(fs.getPath("/srv/transfers"));
    }

    @AfterEach
    void tearDown() throws Exception {
        fs.close();
    }

    @Test
    void theRootOfAScopeIsItsTenantAndProjectDirectory() {
        assertThat(foot.root(SCOPE, null).root()).isEqualTo(fs.getPath("/srv/transfers/acme/proj-research"));
    }

    @Test
    void theProjectDirectoryIsCreatedOnFirstUse() {
        foot.root(SCOPE, null);
        assertThat(fs.getPath("/srv/transfers/acme/proj-research")).isDirectory();
    }

    @Test
    @org.junit.jupiter.api.condition.EnabledOnOs(org.junit.jupiter.api.condition.OS.LINUX)
    void theTenantAndProjectDirectoriesAreForThisUserAlone(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp)
            throws Exception {
        FootTargetResolver onDisk = FootTargetResolver.at(tmp.resolve("transfers"));
        onDisk.root(SCOPE, null);
        for (String dir : new String[] {"transfers/acme", "transfers/acme/proj-research"}) {
            assertThat(java.nio.file.attribute.PosixFilePermissions.toString(
                    java.nio.file.Files.getPosixFilePermissions(tmp.resolve(dir)))).as(dir).isEqualTo("rwx------");
        }
    }

    @Test
    void dirNameIsIgnoredOnTheClient() {
        assertThat(foot.root(SCOPE, "anything").root()).isEqualTo(foot.root(SCOPE, null).root());
    }

    @Test
    void jailbreakUnsafeTenantOrProjectIsRefused() {
        for (TransferScope bad : new TransferScope[] {new TransferScope("..", "p"), new TransferScope("acme", "a/b"),
                new TransferScope("acme", ".worktarget"), new TransferScope(".hidden", "p")}) {
            assertThat(foot.root(bad, null).error()).as("%s", bad).isEqualTo(FootTargetResolver.BAD_SCOPE);
        }
        assertThat(fs.getPath("/srv/transfers")).doesNotExist();
    }

    @Test
    void tenantOrProjectThatIsNotValidTextIsRefused() {
        for (TransferScope bad : new TransferScope[] {new TransferScope("\uFFFD\uFFFD", "p"),
                new TransferScope("acme", "p\uDC00"), new TransferScope("acme", "a\u2028b")}) {
            assertThat(foot.root(bad, null).error()).as("%s", bad).isEqualTo(FootTargetResolver.BAD_SCOPE);
        }
        assertThat(fs.getPath("/srv/transfers")).doesNotExist();
    }

    @Test
    void jailbreakLinkedProjectDirectoryIsRefused() throws Exception {
        Path elsewhere = Files.createDirectories(fs.getPath("/elsewhere"));
        Files.createDirectories(fs.getPath("/srv/transfers/acme"));
        Files.createSymbolicLink(fs.getPath("/srv/transfers/acme/linked"), elsewhere);
        TargetResolution r = foot.root(new TransferScope("acme", "linked"), null);
        assertThat(r.ok()).isFalse();
        assertThat(r.error()).contains("leads outside").doesNotContain("/elsewhere");
    }

    @Test
    void jailbreakLinkedTenantDirectoryIsRefusedEvenWhenItStaysInside() throws Exception {
        Files.createDirectories(fs.getPath("/srv/transfers/real/proj-research"));
        Files.createSymbolicLink(fs.getPath("/srv/transfers/acme"), fs.getPath("/srv/transfers/real"));
        assertThat(foot.root(SCOPE, null).ok()).isFalse();
    }

    @Test
    void jailbreakAFileInThePlaceOfTheProjectIsRefused() throws Exception {
        Files.createDirectories(fs.getPath("/srv/transfers/acme"));
        Files.write(fs.getPath("/srv/transfers/acme/proj-research"), new byte[1]);
        assertThat(foot.root(SCOPE, null).ok()).isFalse();
        assertThat(Files.isRegularFile(fs.getPath("/srv/transfers/acme/proj-research"), LinkOption.NOFOLLOW_LINKS)).isTrue();
    }

    @Test
    void windowsFlavourHasTheSameLayout() throws Exception {
        try (FileSystem win = Jimfs.newFileSystem(Configuration.windows())) {
            FootTargetResolver r = FootTargetResolver.at(win.getPath("C:\\transfers"));
            assertThat(r.root(SCOPE, null).root()).isEqualTo(win.getPath("C:\\transfers\\acme\\proj-research"));
        }
    }
}
