package org.vancetope.worktarget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReader;
import java.lang.module.ModuleReference;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README's table of exported types is the whole exported API: every public top-level type of every package
 * that a library module exports to everyone, and nothing else.
 */
class ReadmeApiTableTest {
    private static final String PREFIX = "org.vancetope.worktarget.";
    private static final Pattern ROW = Pattern.compile("^\\| `([a-z.]+\\.[A-Z]\\w*)` \\|", Pattern.MULTILINE);

    private static Set<String> exportedTypes() throws IOException, ClassNotFoundException {
        Set<String> out = new TreeSet<>();
        Path[] entries = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(Path::of).filter(p -> p.toString().replace('\\', '/').matches(
                        ".*/(worktarget-spi|worktarget-core|worktarget-testkit|backend-local|backend-workspace"
                                + "|transfer-protocol|backend-daemon|worktarget-test-fixtures|worktarget-mcp|cluster-redis)/target/.*"))
                .toArray(Path[]::new);
        assertThat(entries).as("the ten library modules on the test class path").hasSize(10);
        for (ModuleReference ref : ModuleFinder.of(entries).findAll()) {
            ModuleDescriptor d = ref.descriptor();
            assertThat(d.isAutomatic()).as(d.name() + " has a module descriptor").isFalse();
            Set<String> packages = new TreeSet<>();
            d.exports().stream().filter(e -> !e.isQualified()).forEach(e -> packages.add(e.source()));
            try (ModuleReader reader = ref.open(); Stream<String> names = reader.list()) {
                for (String name : (Iterable<String>) names::iterator) {
                    if (!name.endsWith(".class") || name.contains("$") || name.endsWith("module-info.class")) {
                        continue;
                    }
                    String type = name.substring(0, name.length() - 6).replace('/', '.');
                    String pkg = type.substring(0, type.lastIndexOf('.'));
                    if (packages.contains(pkg) && !type.endsWith(".package-info")
                            && Modifier.isPublic(Class.forName(type, false, ReadmeApiTableTest.class.getClassLoader())
                            .getModifiers())) {
                        out.add(type.substring(PREFIX.length()));
                    }
                }
            }
        }
        return out;
    }

    private static Set<String> readmeTypes() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"));
        String section = readme.substring(readme.indexOf("## Public API and Java modules"));
        section = section.substring(0, section.indexOf("\n## ", 5));
        Set<String> out = new TreeSet<>();
        Matcher m = ROW.matcher(section);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    @Test
    void theReadmeListsExactlyTheExportedTypes() throws Exception {
        Set<String> exported = exportedTypes();
        Set<String> listed = readmeTypes();
        Set<String> missing = new TreeSet<>(exported);
        missing.removeAll(listed);
        Set<String> extra = new TreeSet<>(listed);
        extra.removeAll(exported);
        assertThat(missing).as("exported but not in the README's API table").isEmpty();
        assertThat(extra).as("in the README's API table but not exported").isEmpty();
        assertThat(readmeCount()).as("the count the README states").isEqualTo(exported.size());
    }

    private static int readmeCount() throws IOException {
        Matcher m = Pattern.compile("These are all the exported types \\((\\d+)\\)").matcher(
                Files.readString(Path.of("..", "README.md")));
        assertThat(m.find()).as("the README states how many types are exported").isTrue();
        return Integer.parseInt(m.group(1));
    }
}
