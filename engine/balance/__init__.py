"""Balance at scale: runs of many games kept in a folder (`runs`), played here or on a Ray cluster (`ray_backend`),
the statistics a designer reads from them (`stats`) and the HTML report of a run (`report`)."""
