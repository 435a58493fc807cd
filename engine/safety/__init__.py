"""What keeps a shared router safe under hostile input and process life: schema patterns
matched in time linear in the value (:mod:`.patterns`), and locks that come back free in a
forked child (:mod:`.forksafe`). The ground floor: nothing here imports another room."""
