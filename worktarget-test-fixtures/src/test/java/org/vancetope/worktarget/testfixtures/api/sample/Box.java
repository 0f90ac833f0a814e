package org.vancetope.worktarget.testfixtures.api.sample;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;

/**
 * Generics, visibility, nested types and a bridge method, for the API dump's tests.
 *
 * @param <T> the content
 */
public class Box<T extends Comparable<? super T>> implements Comparable<Box<T>> {
    /** A constant. */
    public static final int LIMIT = 3;
    /** A protected field. */
    protected T value;
    int packagePrivateField;

    /**
     * A public constructor.
     *
     * @param value the content
     */
    public Box(T value) {
        this.value = value;
    }

    /** A protected constructor. */
    protected Box() {
        this(null);
    }

    Box(int ignored) {
        this(null);
    }

    /**
     * A generic method.
     *
     * @param f the function
     * @param <R> the result
     * @return the results
     */
    public <R> List<R> map(Function<? super T, ? extends R> f) {
        return List.of(f.apply(value));
    }

    /**
     * Varargs.
     *
     * @param values the values
     * @return their sum
     */
    public static int sum(int... values) {
        int s = 0;
        for (int v : values) {
            s += v;
        }
        return s;
    }

    /**
     * A checked exception.
     *
     * @param p a path
     * @throws IOException never
     */
    public void write(Path p) throws IOException {
    }

    void packagePrivateMethod() {
    }

    @Override
    public int compareTo(Box<T> o) {
        return value.compareTo(o.value);
    }

    /** A public static nested class. */
    public static final class Inner {
        /** Its constructor. */
        public Inner() {
        }
    }

    /**
     * A protected nested interface.
     *
     * @param <V> the result
     */
    protected interface Visitor<V> {
        /**
         * Visits.
         *
         * @param box the box
         * @return the result
         */
        V visit(Box<?> box);
    }

    private static final class Hidden {
    }

    static Class<?> hidden() {
        return Hidden.class;
    }
}
