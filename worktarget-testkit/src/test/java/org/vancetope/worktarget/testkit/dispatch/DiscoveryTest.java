package org.vancetope.worktarget.testkit.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.core.internal.Discovery;
import org.vancetope.worktarget.spi.BackendToolProvider;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.core.InMemoryProcessStore;

class DiscoveryTest {

    @Test
    void discoverBackendsFindsProvidersDeclaredInMetaInfServices() throws ToolException {
        InMemoryProcessStore store = new InMemoryProcessStore();
        store.process("p1").tenant("acme").project("proj").add();
        WorkTargetDispatcher d = WorkTargetDispatcher.builder().processStore(store).discoverBackends().build();
        assertThat(d.invoke("p1", "file_list", Map.of())).containsEntry("from", "discovered");
    }

    @Test
    void aDiscoveredProviderClashingWithAnExplicitOneFailsTheBuild() {
        InMemoryProcessStore store = new InMemoryProcessStore();
        assertThatThrownBy(() -> WorkTargetDispatcher.builder().processStore(store)
                .backend(new DiscoveredTestBackend()).discoverBackends().build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("work_file_list");
    }

    @Test
    void aProviderBuiltForAnotherSpiVersionIsRefusedLoudly(@TempDir Path dir) throws IOException {
        try (URLClassLoader loader = loaderWithServices(dir, FutureSpiBackend.class.getName())) {
            assertThatThrownBy(() -> Discovery.backendProviders(loader))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("SPI version 2").hasMessageContaining("'future'");
        }
    }

    @Test
    void aProviderThatCannotBeLoadedIsSkippedAndTheOthersStillLoad(@TempDir Path dir) throws IOException {
        try (URLClassLoader loader = loaderWithServices(dir, "org.example.DoesNotExist\n"
                + DiscoveredTestBackend.class.getName())) {
            List<BackendToolProvider> found = Discovery.backendProviders(loader);
            assertThat(found).extracting(BackendToolProvider::name).contains("discovered");
        }
    }

    private static URLClassLoader loaderWithServices(Path dir, String content) throws IOException {
        Path services = dir.resolve("META-INF/services");
        Files.createDirectories(services);
        Files.writeString(services.resolve(BackendToolProvider.class.getName()), content + "\n");
        // A parent without the test class path's services file, so only our file is seen.
        ClassLoader parent = new ClassLoader(DiscoveryTest.class.getClassLoader()) {
            @Override
            public URL getResource(String name) {
                return name.startsWith("META-INF/services/") ? null : super.getResource(name);
            }

            @Override
            public java.util.Enumeration<URL> getResources(String name) throws IOException {
                return name.startsWith("META-INF/services/") ? java.util.Collections.emptyEnumeration()
                        : super.getResources(name);
            }
        };
        return new URLClassLoader(new URL[] {dir.toUri().toURL()}, parent);
    }
}
