/** A consumer of WorkTarget on the module path, as a host application would be. */
module consumer {
    requires org.vancetope.worktarget.backend.daemon;
    requires org.vancetope.worktarget.backend.local;
    requires org.vancetope.worktarget.backend.workspace;

    provides org.vancetope.worktarget.spi.BackendToolProvider with consumer.Greeting;
}
