DROP TABLE IF EXISTS private.label_page_validators;
