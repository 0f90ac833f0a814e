package org.vancetope.worktarget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.backend.daemon.internal.NettyVersionCheck;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The Central-style POM check: what Maven Central requires of every published POM, what must not be
 * published, and a BOM that covers every library module with the Netty and Jackson versions the build uses.
 * The modules come from the root POM's {@code <modules>}, so a new module is checked too.
 */
class PomMetadataTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /** The reactor modules that are not library artifacts. */
    private static final Set<String> NOT_PUBLISHED = Set.of("examples", "benchmarks");
    private static final String BOM = "worktarget-bom";

    private static Element pom(Path file) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(false);
        Document d = f.newDocumentBuilder().parse(file.toFile());
        return d.getDocumentElement();
    }

    private static Element pom(String module) throws Exception {
        return pom(ROOT.resolve(module).resolve("pom.xml"));
    }

    /** The direct child of that name, or null. */
    private static Element child(Element e, String name) {
        for (Node n = e == null ? null : e.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element c && c.getTagName().equals(name)) {
                return c;
            }
        }
        return null;
    }

    private static String text(Element e, String path) {
        Element cur = e;
        for (String part : path.split("/")) {
            cur = child(cur, part);
        }
        return cur == null ? null : cur.getTextContent().strip();
    }

    private static List<Element> children(Element e, String name) {
        List<Element> out = new ArrayList<>();
        for (Node n = e == null ? null : e.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element c && c.getTagName().equals(name)) {
                out.add(c);
            }
        }
        return out;
    }

    private static List<String> modules() throws Exception {
        List<String> out = new ArrayList<>();
        for (Element m : children(child(pom(ROOT.resolve("pom.xml")), "modules"), "module")) {
            out.add(m.getTextContent().strip());
        }
        return out;
    }

    /** The library jar modules: every module but the BOM and those not published. */
    private static Set<String> libraryModules() throws Exception {
        Set<String> out = new TreeSet<>(modules());
        out.remove(BOM);
        out.removeAll(NOT_PUBLISHED);
        return out;
    }

    private static void assertCentralMetadata(String what, Element p) {
        assertThat(text(p, "url")).as(what + " url").isNotBlank();
        assertThat(children(child(p, "licenses"), "license")).as(what + " licenses").isNotEmpty();
        assertThat(text(p, "licenses/license/name")).as(what + " license name").isEqualTo("Apache License, Version 2.0");
        assertThat(text(p, "licenses/license/url")).as(what + " license url").isNotBlank();
        assertThat(children(child(p, "developers"), "developer")).as(what + " developers").isNotEmpty();
        assertThat(text(p, "developers/developer/name")).as(what + " developer name").isNotBlank();
        assertThat(text(p, "scm/connection")).as(what + " scm connection").startsWith("scm:git:");
        assertThat(text(p, "scm/developerConnection")).as(what + " scm developerConnection").startsWith("scm:git:");
        assertThat(text(p, "scm/url")).as(what + " scm url").isNotBlank();
    }

    @Test
    void theParentCarriesTheMetadataCentralRequiresForItsModulesToInherit() throws Exception {
        Element parent = pom(ROOT.resolve("pom.xml"));
        assertThat(text(parent, "name")).isNotBlank();
        assertThat(text(parent, "description")).isNotBlank();
        assertCentralMetadata("worktarget-parent", parent);
    }

    @Test
    void everyLibraryModuleInheritsFromTheParentAndHasItsOwnNameAndDescription() throws Exception {
        assertThat(libraryModules()).isNotEmpty();
        for (String m : libraryModules()) {
            Element p = pom(m);
            assertThat(text(p, "parent/artifactId")).as(m + " parent").isEqualTo("worktarget-parent");
            assertThat(text(p, "artifactId")).as(m + " artifactId").isEqualTo(m);
            assertThat(text(p, "name")).as(m + " name").isNotBlank();
            assertThat(text(p, "description")).as(m + " description").isNotBlank();
            // no module may switch the sources or javadoc jar off, or its own deploy
            assertThat(text(p, "properties/maven.source.skip")).as(m + " maven.source.skip").isNull();
            assertThat(text(p, "properties/maven.javadoc.skip")).as(m + " maven.javadoc.skip").isNull();
            assertThat(text(p, "properties/maven.deploy.skip")).as(m + " maven.deploy.skip").isNull();
        }
    }

    @Test
    void theBomRepeatsTheMetadataAsItInheritsNone() throws Exception {
        Element bom = pom(BOM);
        assertThat(child(bom, "parent")).as("the BOM must not inherit our build settings").isNull();
        assertThat(text(bom, "name")).isNotBlank();
        assertThat(text(bom, "description")).isNotBlank();
        assertCentralMetadata(BOM, bom);
    }

    @Test
    void examplesAndBenchmarksAreNeitherInstalledNorDeployed() throws Exception {
        for (String m : NOT_PUBLISHED) {
            assertThat(modules()).contains(m);
            Element p = pom(m);
            assertThat(text(p, "properties/maven.deploy.skip")).as(m + " maven.deploy.skip").isEqualTo("true");
            assertThat(text(p, "properties/maven.install.skip")).as(m + " maven.install.skip").isEqualTo("true");
        }
    }

    @Test
    void theBomListsEveryLibraryModuleAndNothingUnpublished() throws Exception {
        Set<String> ours = new TreeSet<>();
        for (Element d : children(child(child(pom(BOM), "dependencyManagement"), "dependencies"), "dependency")) {
            if ("org.vancetope.worktarget".equals(text(d, "groupId"))) {
                ours.add(text(d, "artifactId"));
                assertThat(text(d, "version")).isEqualTo("${project.version}");
            }
        }
        assertThat(ours).isEqualTo(libraryModules());
    }

    @Test
    void theBomBringsTheNettyAndJacksonVersionsTheBuildUses() throws Exception {
        Element parent = pom(ROOT.resolve("pom.xml"));
        Element bom = pom(BOM);
        String netty = text(parent, "properties/netty.version");
        String jackson = text(parent, "properties/jackson.version");
        assertThat(text(bom, "properties/netty.version")).isEqualTo(netty);
        assertThat(text(bom, "properties/jackson.version")).isEqualTo(jackson);
        assertThat(NettyVersionCheck.TESTED_VERSION).as("the version NettyVersionCheck names").isEqualTo(netty);

        Set<String> imports = new TreeSet<>();
        for (Element d : children(child(child(bom, "dependencyManagement"), "dependencies"), "dependency")) {
            if ("import".equals(text(d, "scope"))) {
                imports.add(text(d, "groupId") + ":" + text(d, "artifactId") + ":" + text(d, "version"));
            }
        }
        assertThat(imports).containsExactlyInAnyOrder("io.netty:netty-bom:${netty.version}",
                "com.fasterxml.jackson:jackson-bom:${jackson.version}");
    }

    @Test
    void theRepositoryHoldsTheApacheLicenseThePomsName() throws IOException {
        String license = Files.readString(ROOT.resolve("LICENSE"));
        assertThat(license).contains("Apache License").contains("Version 2.0, January 2004")
                .contains("TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION");
    }

    @Test
    void everyBuiltLibraryModuleHasItsSourcesAndJavadocJar() throws Exception {
        String version = text(pom(ROOT.resolve("pom.xml")), "version");
        for (String m : libraryModules()) {
            Path target = ROOT.resolve(m).resolve("target");
            Path jar = target.resolve(m + "-" + version + ".jar");
            if (!Files.exists(jar)) {
                continue; // not packaged in this build (a single-module run); the full `mvn verify` checks it
            }
            assertThat(target.resolve(m + "-" + version + "-sources.jar")).as(m).exists();
            assertThat(target.resolve(m + "-" + version + "-javadoc.jar")).as(m).exists();
        }
    }
}
