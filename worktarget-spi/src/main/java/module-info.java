/**
 * The WorkTarget SPI: the types a backend, an authenticator or a process store implements, and the
 * values they exchange with the dispatcher. It depends on nothing but the JDK.
 */
module org.vancetope.worktarget.spi {
    exports org.vancetope.worktarget.spi;
}
