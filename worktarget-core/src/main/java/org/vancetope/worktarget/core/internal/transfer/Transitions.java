package org.vancetope.worktarget.core.internal.transfer;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.vancetope.worktarget.core.transfer.IllegalTransitionException;

/**
 * An explicit transition table over an enum of states.
 *
 * @param <S> the state type
 */
public final class Transitions<S extends Enum<S>> {
    private final Map<S, Set<S>> allowed;

    private Transitions(Map<S, Set<S>> allowed) {
        this.allowed = allowed;
    }

    /**
     * Starts a table.
     *
     * @param type the state enum
     * @param <S> the state type
     * @return a builder
     */
    public static <S extends Enum<S>> Builder<S> of(Class<S> type) {
        return new Builder<>(type);
    }

    /**
     * Whether a transition is in the table.
     *
     * @param from the current state
     * @param to the next state
     * @return true when allowed
     */
    public boolean allows(S from, S to) {
        return allowed.get(from).contains(to);
    }

    /**
     * Checks a transition.
     *
     * @param from the current state
     * @param to the next state
     * @return {@code to}
     * @throws IllegalTransitionException when the table does not allow it
     */
    public S check(S from, S to) {
        if (!allows(from, to)) {
            throw new IllegalTransitionException(from, to);
        }
        return to;
    }

    /**
     * The states reachable from one state in one step.
     *
     * @param from the state
     * @return the targets
     */
    public Set<S> targets(S from) {
        return EnumSet.copyOf(allowed.get(from).isEmpty() ? EnumSet.noneOf(from.getDeclaringClass()) : allowed.get(from));
    }

    /**
     * Builds a table.
     *
     * @param <S> the state type
     */
    public static final class Builder<S extends Enum<S>> {
        private final Class<S> type;
        private final Map<S, Set<S>> allowed;

        private Builder(Class<S> type) {
            this.type = type;
            this.allowed = new EnumMap<>(type);
            for (S s : type.getEnumConstants()) {
                allowed.put(s, EnumSet.noneOf(type));
            }
        }

        /**
         * Allows transitions.
         *
         * @param from the source state
         * @param first a target
         * @param more more targets
         * @return this
         */
        @SafeVarargs
        public final Builder<S> allow(S from, S first, S... more) {
            allowed.get(from).add(first);
            for (S s : more) {
                allowed.get(from).add(s);
            }
            return this;
        }

        /**
         * The table.
         *
         * @return an immutable table
         */
        public Transitions<S> build() {
            Map<S, Set<S>> copy = new EnumMap<>(type);
            allowed.forEach((k, v) -> copy.put(k, java.util.Collections.unmodifiableSet(EnumSet.copyOf(
                    v.isEmpty() ? EnumSet.noneOf(type) : v))));
            return new Transitions<>(copy);
        }
    }
}
