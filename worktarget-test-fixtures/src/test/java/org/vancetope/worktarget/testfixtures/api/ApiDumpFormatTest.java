package org.vancetope.worktarget.testfixtures.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.testfixtures.api.sample.Box;

/** The dump of the sample classes in {@code api.sample} (and {@code api.sample.internal}). */
class ApiDumpFormatTest {
    private static final String S = "org.vancetope.worktarget.testfixtures.api.sample.";

    private static List<String> dump() throws Exception {
        Path classes = Path.of(Box.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        return ApiDump.of(classes, S.substring(0, S.length() - 1), Box.class.getClassLoader());
    }

    /** The lines of one type: its own line and the indented lines after it. */
    private static List<String> type(String header) throws Exception {
        List<String> all = dump();
        int at = all.indexOf(header);
        assertThat(at).as("type line %s in%n%s", header, String.join("\n", all)).isNotNegative();
        int end = at + 1;
        while (end < all.size() && all.get(end).startsWith("  ")) {
            end++;
        }
        return all.subList(at, end);
    }

    private static List<String> typeLines(List<String> dump) {
        return dump.stream().filter(l -> !l.startsWith(" ")).toList();
    }

    @Test
    void typesAreListedOncePerTypeSortedByName() throws Exception {
        List<String> types = typeLines(dump());
        assertThat(types).hasSize(11).isSortedAccordingTo((a, b) -> name(a).compareTo(name(b)));
        assertThat(ApiDump.typeCount(dump())).isEqualTo(11);
    }

    /** The type's name in its line: up to its type parameters, record components or supertypes. */
    private static String name(String typeLine) {
        return typeLine.substring(typeLine.indexOf(S)).split("[<( ]", 2)[0];
    }

    @Test
    void internalPackagesAndNonPublicTypesAreLeftOut() throws Exception {
        assertThat(dump()).noneMatch(l -> l.contains(".internal.") || l.contains("Hidden"))
                .noneMatch(l -> l.startsWith("abstract class") || l.contains("class " + S + "Base"));
    }

    @Test
    void nonPublicMembersAndBridgeMethodsAreLeftOut() throws Exception {
        assertThat(type("public class " + S + "Box<T extends java.lang.Comparable<? super T>> implements "
                + "java.lang.Comparable<" + S + "Box<T>>")).containsExactly(
                "public class " + S + "Box<T extends java.lang.Comparable<? super T>> implements "
                        + "java.lang.Comparable<" + S + "Box<T>>",
                "  protected Box()",
                "  public Box(T)",
                "  public static final int LIMIT",
                "  protected T value",
                "  public int compareTo(" + S + "Box<T>)",
                "  public <R> java.util.List<R> map(java.util.function.Function<? super T, ? extends R>)",
                "  public static int sum(int...)",
                "  public void write(java.nio.file.Path) throws java.io.IOException");
    }

    @Test
    void publicAndProtectedNestedTypesAreListedUnderTheirCanonicalNames() throws Exception {
        assertThat(type("public static final class " + S + "Box.Inner")).containsExactly(
                "public static final class " + S + "Box.Inner", "  public Inner()");
        assertThat(type("protected interface " + S + "Box.Visitor<V>")).containsExactly(
                "protected interface " + S + "Box.Visitor<V>", "  public V visit(" + S + "Box<?>)");
    }

    @Test
    void recordsShowTheirComponentsInDeclarationOrderWithoutTheImplicitMembers() throws Exception {
        assertThat(type("public record " + S + "Point(int y, int x)")).containsExactly(
                "public record " + S + "Point(int y, int x)",
                "  public Point(int, int)",
                "  public static " + S + "Point origin()",
                "  public int sum()");
    }

    @Test
    void enumsShowTheirConstantsInDeclarationOrderWithoutValuesAndValueOf() throws Exception {
        assertThat(type("public enum " + S + "Color")).containsExactly(
                "public enum " + S + "Color",
                "  constant RED",
                "  constant BLUE",
                "  constant AMBER",
                "  public java.lang.String label()");
    }

    @Test
    void sealedTypesListTheirPermittedSubtypesAndTheSubtypesSayHowTheyClose() throws Exception {
        assertThat(type("public sealed interface " + S + "Shape permits " + S + "Circle, " + S + "Square"))
                .containsExactly("public sealed interface " + S + "Shape permits " + S + "Circle, " + S + "Square",
                        "  public double area()",
                        "  public default java.lang.String describe()");
        assertThat(dump()).contains("public record " + S + "Circle(double radius) implements " + S + "Shape",
                "public non-sealed class " + S + "Square implements " + S + "Shape");
    }

    @Test
    void functionalInterfacesAndDeprecationsAreMarked() throws Exception {
        assertThat(type("@FunctionalInterface public interface " + S + "Action"))
                .containsExactly("@FunctionalInterface public interface " + S + "Action",
                        "  public void run() throws java.lang.Exception");
        assertThat(type("@Deprecated public class " + S + "Old"))
                .containsExactly("@Deprecated public class " + S + "Old",
                        "  public Old()",
                        "  @Deprecated(forRemoval=true) public void gone()");
    }

    @Test
    void publicMembersInheritedFromANonApiSuperclassAreListedOnTheSubclass() throws Exception {
        assertThat(type("public final class " + S + "Derived extends " + S + "Base"))
                .containsExactly("public final class " + S + "Derived extends " + S + "Base",
                        "  public Derived()",
                        "  public java.lang.String inherited()");
    }

    @Test
    void theSameClassesGiveTheSameDump() throws Exception {
        assertThat(dump()).isEqualTo(dump());
    }
}
