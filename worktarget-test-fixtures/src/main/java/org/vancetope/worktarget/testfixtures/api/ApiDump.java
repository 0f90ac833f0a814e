package org.vancetope.worktarget.testfixtures.api;

import java.io.IOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A text dump of the public API in a directory of compiled classes, read by reflection: every public
 * type (and public or protected member type of one) outside packages with an {@code internal} segment,
 * and its public and protected constructors, methods and fields with their generic types. Enum
 * constants and record components keep their declaration order (it is part of the API); everything
 * else is sorted, so the dump of the same classes is always the same text.
 *
 * <p>Each type is one unindented line (annotations {@code @Deprecated} and {@code @FunctionalInterface},
 * modifiers, kind, name with type parameters, record components, supertypes, sealed permits), followed
 * by its members indented by two spaces:
 *
 * <pre>{@code
 * public final class org.example.Box<T extends java.lang.Comparable<? super T>>
 *   public Box(T)
 *   public static final int LIMIT
 *   public <R> java.util.List<R> map(java.util.function.Function<? super T, ? extends R>)
 * }</pre>
 *
 * <p>Members inherited from a superclass that is not itself API (package-private or internal) are
 * listed as if declared, since callers see them on the public type.
 */
public final class ApiDump {
    private static final String INDENT = "  ";

    private ApiDump() {
    }

    /**
     * The dump of every class below a directory.
     *
     * @param classesDir a class output directory, such as {@code target/classes}
     * @param loader a class loader that can load those classes and the types their signatures name
     * @return the lines of the dump
     * @throws IOException when the directory cannot be read
     */
    public static List<String> of(Path classesDir, ClassLoader loader) throws IOException {
        return of(classesDir, "", loader);
    }

    /**
     * The dump of the classes below a directory that lie in a package or its subpackages.
     *
     * @param classesDir a class output directory, such as {@code target/classes}
     * @param packagePrefix a package name such as {@code org.example}; empty for all packages
     * @param loader a class loader that can load those classes and the types their signatures name
     * @return the lines of the dump
     * @throws IOException when the directory cannot be read
     */
    public static List<String> of(Path classesDir, String packagePrefix, ClassLoader loader) throws IOException {
        Objects.requireNonNull(loader, "loader");
        TreeMap<String, List<String>> blocks = new TreeMap<>();
        for (String name : classNames(classesDir)) {
            if (!inPackage(name, packagePrefix)) {
                continue;
            }
            Class<?> c = load(name, loader);
            if (isApi(c)) {
                blocks.put(typeName(c), block(c));
            }
        }
        List<String> lines = new ArrayList<>();
        blocks.values().forEach(lines::addAll);
        return lines;
    }

    /**
     * How many types a dump lists.
     *
     * @param dump the lines of a dump
     * @return the number of type lines
     */
    public static int typeCount(List<String> dump) {
        return (int) dump.stream().filter(l -> !l.isEmpty() && !l.startsWith(INDENT) && !l.startsWith("#")).count();
    }

    private static List<String> classNames(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new IOException("no compiled classes at " + dir + " (compile first)");
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".class"))
                    .map(p -> dir.relativize(p).toString().replace('\\', '/'))
                    .filter(p -> !p.endsWith("module-info.class") && !p.endsWith("package-info.class"))
                    .map(p -> p.substring(0, p.length() - ".class".length()).replace('/', '.'))
                    .sorted()
                    .toList();
        }
    }

    private static boolean inPackage(String className, String prefix) {
        return prefix.isEmpty() || className.startsWith(prefix + ".");
    }

    private static Class<?> load(String name, ClassLoader loader) {
        try {
            return Class.forName(name, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException("cannot load " + name + " for the API dump: " + e, e);
        }
    }

    private static boolean isApi(Class<?> c) {
        if (c.isSynthetic() || c.isAnonymousClass() || c.isLocalClass() || c.isArray() || c.isPrimitive()) {
            return false;
        }
        if (("." + c.getPackageName() + ".").contains(".internal.")) {
            return false;
        }
        int m = c.getModifiers();
        Class<?> outer = c.getDeclaringClass();
        if (outer == null) {
            return Modifier.isPublic(m);
        }
        return (Modifier.isPublic(m) || Modifier.isProtected(m)) && isApi(outer);
    }

    private static String typeName(Class<?> c) {
        String canonical = c.getCanonicalName();
        return canonical != null ? canonical : c.getName();
    }

    /** A type's line and its members' lines. */
    private static List<String> block(Class<?> c) {
        List<String> lines = new ArrayList<>();
        lines.add(header(c));
        if (c.isEnum()) {
            for (Field f : c.getDeclaredFields()) {
                if (f.isEnumConstant()) {
                    lines.add(INDENT + annotations(f) + "constant " + f.getName());
                }
            }
        }
        List<Member> members = new ArrayList<>();
        collect(c, c, true, members);
        for (Class<?> s = c.getSuperclass(); s != null && s != Object.class && !isApi(s); s = s.getSuperclass()) {
            collect(c, s, false, members);
        }
        Set<String> seen = new LinkedHashSet<>();
        members.stream().sorted(Comparator.comparingInt(Member::category).thenComparing(Member::name)
                        .thenComparing(Member::line))
                .forEach(mem -> seen.add(INDENT + mem.line()));
        lines.addAll(seen);
        return lines;
    }

    private record Member(int category, String name, String line) {
    }

    private static void collect(Class<?> type, Class<?> declaring, boolean constructors, List<Member> out) {
        if (constructors) {
            for (Constructor<?> k : declaring.getDeclaredConstructors()) {
                if (!k.isSynthetic() && visible(k.getModifiers())) {
                    out.add(new Member(0, "", annotations(k) + modifiers(type, k.getModifiers(), false)
                            + typeParameters(k.getTypeParameters(), true) + type.getSimpleName() + signature(k)));
                }
            }
        }
        for (Field f : declaring.getDeclaredFields()) {
            if (!f.isSynthetic() && !f.isEnumConstant() && visible(f.getModifiers())) {
                out.add(new Member(1, f.getName(), annotations(f) + modifiers(type, f.getModifiers(), false)
                        + type(f.getGenericType()) + " " + f.getName()));
            }
        }
        for (Method m : declaring.getDeclaredMethods()) {
            if (m.isSynthetic() || m.isBridge() || !visible(m.getModifiers()) || implicit(declaring, m)) {
                continue;
            }
            out.add(new Member(2, m.getName(), annotations(m) + modifiers(type, m.getModifiers(), m.isDefault())
                    + typeParameters(m.getTypeParameters(), true) + type(m.getGenericReturnType()) + " "
                    + m.getName() + signature(m)));
        }
    }

    private static boolean visible(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    /** Members the compiler writes for every enum or record: listing them says nothing. */
    private static boolean implicit(Class<?> c, Method m) {
        String n = m.getName();
        int params = m.getParameterCount();
        if (c.isEnum() && Modifier.isStatic(m.getModifiers())) {
            return n.equals("values") && params == 0
                    || n.equals("valueOf") && params == 1 && m.getParameterTypes()[0] == String.class;
        }
        if (c.isRecord() && !Modifier.isStatic(m.getModifiers())) {
            if (params == 0 && (n.equals("hashCode") || n.equals("toString"))) {
                return true;
            }
            if (params == 1 && n.equals("equals") && m.getParameterTypes()[0] == Object.class) {
                return true;
            }
            return params == 0 && Arrays.stream(c.getRecordComponents()).anyMatch(rc -> rc.getName().equals(n));
        }
        return false;
    }

    private static String header(Class<?> c) {
        StringBuilder b = new StringBuilder(annotations(c));
        int m = c.getModifiers();
        b.append(Modifier.isPublic(m) ? "public " : "protected ");
        boolean plainClass = !c.isInterface() && !c.isEnum() && !c.isRecord();
        if (plainClass && c.getDeclaringClass() != null && Modifier.isStatic(m)) {
            b.append("static ");
        }
        if (plainClass && Modifier.isAbstract(m)) {
            b.append("abstract ");
        }
        if (plainClass && Modifier.isFinal(m)) {
            b.append("final ");
        }
        if (!c.isEnum()) {
            if (c.isSealed()) {
                b.append("sealed ");
            } else if (!Modifier.isFinal(m) && !c.isRecord() && extendsSealed(c)) {
                b.append("non-sealed ");
            }
        }
        b.append(c.isAnnotation() ? "@interface " : c.isInterface() ? "interface " : c.isEnum() ? "enum "
                : c.isRecord() ? "record " : "class ");
        b.append(typeName(c)).append(typeParameters(c.getTypeParameters(), false));
        if (c.isRecord()) {
            b.append(Arrays.stream(c.getRecordComponents())
                    .map(ApiDump::component)
                    .collect(Collectors.joining(", ", "(", ")")));
        }
        Type sup = c.getGenericSuperclass();
        if (plainClass && sup != null && sup != Object.class) {
            b.append(" extends ").append(type(sup));
        }
        List<String> interfaces = Arrays.stream(c.getGenericInterfaces())
                .filter(t -> !(c.isAnnotation() && t == Annotation.class))
                .map(ApiDump::type).toList();
        if (!interfaces.isEmpty()) {
            b.append(c.isInterface() ? " extends " : " implements ").append(String.join(", ", interfaces));
        }
        if (!c.isEnum() && c.isSealed()) {
            b.append(" permits ").append(Arrays.stream(c.getPermittedSubclasses())
                    .map(ApiDump::typeName).sorted().collect(Collectors.joining(", ")));
        }
        return b.toString();
    }

    private static boolean extendsSealed(Class<?> c) {
        Class<?> sup = c.getSuperclass();
        return sup != null && sup.isSealed() || Arrays.stream(c.getInterfaces()).anyMatch(Class::isSealed);
    }

    private static String annotations(AnnotatedElement e) {
        StringBuilder b = new StringBuilder();
        Deprecated d = e.getAnnotation(Deprecated.class);
        if (d != null) {
            b.append(d.forRemoval() ? "@Deprecated(forRemoval=true) " : "@Deprecated ");
        }
        if (e.isAnnotationPresent(FunctionalInterface.class)) {
            b.append("@FunctionalInterface ");
        }
        return b.toString();
    }

    private static String modifiers(Class<?> owner, int m, boolean isDefault) {
        StringBuilder b = new StringBuilder(Modifier.isPublic(m) ? "public " : "protected ");
        if (Modifier.isStatic(m)) {
            b.append("static ");
        }
        if (isDefault) {
            b.append("default ");
        }
        if (Modifier.isAbstract(m) && !owner.isInterface()) {
            b.append("abstract ");
        }
        if (Modifier.isFinal(m)) {
            b.append("final ");
        }
        return b.toString();
    }

    private static String typeParameters(TypeVariable<?>[] vars, boolean trailingSpace) {
        if (vars.length == 0) {
            return "";
        }
        String s = Arrays.stream(vars).map(v -> {
            Type[] bounds = v.getBounds();
            if (bounds.length == 1 && bounds[0] == Object.class) {
                return v.getName();
            }
            return v.getName() + " extends "
                    + Arrays.stream(bounds).map(ApiDump::type).collect(Collectors.joining(" & "));
        }).collect(Collectors.joining(", ", "<", ">"));
        return trailingSpace ? s + " " : s;
    }

    private static String signature(Executable e) {
        Type[] params = e.getGenericParameterTypes();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < params.length; i++) {
            String t = type(params[i]);
            if (e.isVarArgs() && i == params.length - 1 && t.endsWith("[]")) {
                t = t.substring(0, t.length() - 2) + "...";
            }
            names.add(t);
        }
        String s = "(" + String.join(", ", names) + ")";
        Type[] thrown = e.getGenericExceptionTypes();
        if (thrown.length > 0) {
            s += " throws " + Arrays.stream(thrown).map(ApiDump::type).collect(Collectors.joining(", "));
        }
        return s;
    }

    /** A type as source spells it, with fully qualified names. */
    static String type(Type t) {
        if (t instanceof Class<?> c) {
            return c.isArray() ? type(c.getComponentType()) + "[]" : typeName(c);
        }
        if (t instanceof ParameterizedType p) {
            Class<?> raw = (Class<?>) p.getRawType();
            String base = p.getOwnerType() instanceof ParameterizedType owner
                    ? type(owner) + "." + raw.getSimpleName() : typeName(raw);
            return base + Arrays.stream(p.getActualTypeArguments()).map(ApiDump::type)
                    .collect(Collectors.joining(", ", "<", ">"));
        }
        if (t instanceof WildcardType w) {
            if (w.getLowerBounds().length > 0) {
                return "? super " + Arrays.stream(w.getLowerBounds()).map(ApiDump::type)
                        .collect(Collectors.joining(" & "));
            }
            Type[] upper = w.getUpperBounds();
            if (upper.length == 0 || upper.length == 1 && upper[0] == Object.class) {
                return "?";
            }
            return "? extends " + Arrays.stream(upper).map(ApiDump::type).collect(Collectors.joining(" & "));
        }
        if (t instanceof TypeVariable<?> v) {
            return v.getName();
        }
        if (t instanceof GenericArrayType g) {
            return type(g.getGenericComponentType()) + "[]";
        }
        return t.getTypeName();
    }

    private static String component(RecordComponent rc) {
        return type(rc.getGenericType()) + " " + rc.getName();
    }
}
