package org.vancetope.worktarget.spi;

/**
 * The routing key of a remote peer: a session's client ({@link SessionKey}, the CLIENT target) or a
 * named daemon ({@link DaemonKey}, the DAEMON target). One registry holds both kinds; a second peer
 * with the same key supersedes the first.
 */
public sealed interface PeerKey permits SessionKey, DaemonKey {

    /**
     * The tenant the peer belongs to.
     *
     * @return the tenant
     */
    String tenant();

    /**
     * The peer as a user reads it in a message, e.g. {@code daemon 'box' of project 'proj'}.
     *
     * @return the description
     */
    String describe();
}
