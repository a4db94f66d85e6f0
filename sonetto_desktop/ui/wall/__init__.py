"""The memory card wall: the Qt models over the store, one section per theme, cards painted by a
delegate, search, filters, selection and what the person does to cards."""
